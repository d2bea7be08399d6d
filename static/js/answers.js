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

  // A draft is never put in the box over the text the page shows now (it may be a newer
  // proposal): it is shown beside it as "your draft", to use or to discard.
  const DRAFTS = "memadmin-draft:";
  function draftAside(key, text) {
    const aside = document.createElement("div");
    aside.className = "draft-aside";
    aside.dataset.draftAside = key;
    const said = document.createElement("p");
    said.innerHTML = "<strong>Your draft</strong> (not saved; the box holds the current text):";
    const quote = document.createElement("blockquote");
    quote.className = "draft-text";
    quote.textContent = text;
    const buttons = document.createElement("p");
    buttons.innerHTML = '<button type="button" data-use-draft>Use my draft</button> <button type="button" data-discard-draft>Discard my draft</button>';
    aside.append(said, quote, buttons);
    return aside;
  }
  function restoreDrafts() {
    document.querySelectorAll("textarea[data-draft]").forEach(function (box) {
      const key = box.dataset.draft;
      const saved = sessionStorage.getItem(DRAFTS + key);
      let aside = document.querySelector("[data-draft-aside='" + key + "']");
      if (!aside && saved !== null && saved.trim() !== box.value.trim()) {
        aside = draftAside(key, saved);
        box.form.parentNode.insertBefore(aside, box.form);
      }
      if (aside) aside.querySelectorAll("button[hidden]").forEach(function (button) { button.hidden = false; });
      if (box.dataset.watched) return;
      box.dataset.watched = "yes";
      box.addEventListener("input", function () { sessionStorage.setItem(DRAFTS + key, box.value); });
    });
  }
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-use-draft], [data-discard-draft]");
    if (!button) return;
    const aside = button.closest("[data-draft-aside]");
    const key = aside.dataset.draftAside;
    const box = document.querySelector("textarea[data-draft='" + key + "']");
    if (button.hasAttribute("data-use-draft") && box) {
      box.value = aside.querySelector(".draft-text").textContent;
      sessionStorage.setItem(DRAFTS + key, box.value);
      box.focus();
    } else {
      sessionStorage.removeItem(DRAFTS + key);
    }
    aside.remove();
  });
  // After a refusal the focus goes to what it says, not to the page's top.
  document.addEventListener("htmx:afterSwap", function () {
    const refusal = document.querySelector(".refusal[role=alert]");
    if (refusal) refusal.focus();
  });
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
  // "Select all": a table's header box ticks every row's box of that name in its table
  // (a group of its own), a box outside any table every one on the page.
  document.addEventListener("change", function (event) {
    const name = event.target.dataset && event.target.dataset.selectAll;
    if (!name) return;
    const scope = event.target.closest("table") || document;
    scope.querySelectorAll("input[type=checkbox][name='" + name + "']").forEach(function (box) {
      box.checked = event.target.checked;
    });
  });
  // A slider says its value while it moves (the list is drawn again when it is let go).
  document.addEventListener("input", function (event) {
    if (event.target.type !== "range") return;
    const shown = event.target.parentElement.querySelector("output");
    if (shown) shown.textContent = Number(event.target.value).toFixed(2);
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
