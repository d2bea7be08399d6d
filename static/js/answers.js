// What the server answers to an HTMX request, made visible. A refused decision (409) is
// swapped in by htmx itself (base.html's config); any other error (a 400, 403, 404 or
// 500 page, or no answer at all) would leave the page unchanged, so its reason is shown
// at the top of the page instead. A merged text being written is kept in the browser
// until it is saved, so an expired session or a reload loses nothing.
(function () {
  "use strict";
  function alertText(detail) {
    const xhr = detail.xhr;
    if (!xhr || !xhr.status) return "The server did not answer: nothing was changed. Try again.";
    const page = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    const reason = page.querySelector("main p, main h1, p, h1");
    const said = reason ? reason.textContent.trim() : "";
    return "Refused (" + xhr.status + ")" + (said ? ": " + said : "") + ". Nothing was changed.";
  }
  function showAlert(text) {
    const box = document.getElementById("page-alert");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("htmx:responseError", function (event) { showAlert(alertText(event.detail)); });
  document.addEventListener("htmx:sendError", function (event) { showAlert(alertText(event.detail)); });

  const DRAFTS = "memadmin-draft:";
  function restoreDrafts() {
    document.querySelectorAll("textarea[data-draft]").forEach(function (box) {
      const saved = sessionStorage.getItem(DRAFTS + box.dataset.draft);
      if (saved !== null && saved !== box.value) {
        box.value = saved;
        box.classList.add("restored");
      }
      box.addEventListener("input", function () { sessionStorage.setItem(DRAFTS + box.dataset.draft, box.value); });
    });
  }
  // A decision taken ends its draft; a refusal, or a detour by the login, keeps it.
  document.addEventListener("htmx:afterRequest", function (event) {
    const xhr = event.detail.xhr;
    if (!xhr || (xhr.getResponseHeader("HX-Trigger") || "").indexOf("decisionTaken") < 0) return;
    const box = event.detail.elt.querySelector && event.detail.elt.querySelector("textarea[data-draft]");
    if (box) sessionStorage.removeItem(DRAFTS + box.dataset.draft);
  });
  document.addEventListener("submit", function (event) {
    if (event.target.hasAttribute("hx-post")) return;  // handled above
    const box = event.target.querySelector("textarea[data-draft]");
    if (box) sessionStorage.removeItem(DRAFTS + box.dataset.draft);
  });
  // "Select all on this page": the header box ticks every row's box of that name.
  document.addEventListener("change", function (event) {
    const name = event.target.dataset && event.target.dataset.selectAll;
    if (!name) return;
    document.querySelectorAll("input[type=checkbox][name='" + name + "']").forEach(function (box) {
      box.checked = event.target.checked;
    });
  });
  // What only works with JavaScript is shown only with it: the toast's close button,
  // the shortcut hints.
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-close-toast], [data-js-shows]").forEach(function (element) { element.hidden = false; });
  });
  document.addEventListener("click", function (event) {
    const close = event.target.closest && event.target.closest("[data-close-toast]");
    if (close) close.closest("[data-toast]").remove();
  });
  document.addEventListener("DOMContentLoaded", restoreDrafts);
  document.addEventListener("htmx:afterSwap", restoreDrafts);
})();
