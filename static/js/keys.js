// Keyboard shortcuts for the review pages. Queue: j / k move, Enter opens. Cluster page:
// a accept, e edit the merged text, d dismiss, n / p the next / previous cluster of the
// queue it was opened from. Conflict page: 1-6 choose a resolution, n / p as above. Audit:
// 1-4 answer the pair. Many
// clusters at once: j / k move, x ticks, e edits the cluster's text, a / d merge or
// dismiss the ticked ones (a preview first). Everywhere: ? shows the help. Keys are
// ignored while typing in a field.
(function () {
  "use strict";
  function typing(event) {
    const tag = event.target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.target.isContentEditable;
  }
  function rows() { return Array.from(document.querySelectorAll("#queue tbody tr[data-href], #batch .batch-row")); }
  function selectedRow() { return current >= 0 ? rows()[current] : null; }
  function batchAction(action) {
    const button = document.querySelector("[data-batch-action='" + action + "']");
    if (!button) return false;
    button.click();
    return true;
  }
  let current = -1;
  function select(index) {
    const all = rows();
    if (!all.length) return;
    current = Math.max(0, Math.min(index, all.length - 1));
    all.forEach((row, i) => row.classList.toggle("selected", i === current));
    all[current].scrollIntoView({ block: "nearest" });
  }
  function submit(selector) {
    const form = document.querySelector(selector);
    // A decision already on its way is not followed by a second, contradictory one.
    if (!form || document.querySelector(".htmx-request")) return;
    // A protected or guarded cluster is decided on purpose, never by a stray key.
    const flagged = document.querySelector("[data-flagged]");
    if (flagged && !window.confirm("This cluster is flagged (" + flagged.textContent + "). Decide it anyway?")) return;
    form.requestSubmit();
  }
  function follow(selector) {
    const link = document.querySelector(selector);
    if (link) window.location = link.href;
  }
  // The whole row opens its cluster (a click on a box, a link or a button stays theirs).
  document.addEventListener("click", function (event) {
    const row = event.target.closest && event.target.closest("#queue tbody tr[data-href]");
    if (!row || event.target.closest("a, button, input, label, select")) return;
    window.location = row.dataset.href;
  });
  // A filter redraws the queue: the selection starts again at its first row.
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && (event.detail.target.id === "queue" || event.detail.target.id === "batch")) current = -1;
  });
  document.addEventListener("keydown", function (event) {
    if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    const help = document.getElementById("keys-help");
    switch (event.key) {
      case "j": select(current + 1); break;
      case "k": select(current - 1); break;
      case "Enter":
        // Enter on a link, a button or a field is theirs, never the selected row's.
        if (current < 0 || (event.target.closest && event.target.closest("a, button, input, select, textarea, summary, label"))) return;
        if (rows()[current].dataset.href) window.location = rows()[current].dataset.href;
        break;
      case "x": { const row = selectedRow(); const tick = row && row.querySelector("input[name='ticked']"); if (tick) tick.checked = !tick.checked; break; }
      case "a": if (!batchAction("accept")) submit("form[data-key='accept']"); break;
      case "d": if (!batchAction("dismiss")) submit("form[data-key='dismiss']"); break;
      case "e": {
        const row = selectedRow();
        const box = (row && row.querySelector("textarea")) || document.querySelector("textarea[name='text']");
        if (box) { event.preventDefault(); box.focus(); }
        break;
      }
      case "n": follow("[data-key-next]"); break;
      case "p": follow("[data-key-previous]"); break;
      case "?": if (help) help.hidden = !help.hidden; break;
      case "1": case "2": case "3": case "4": case "5": case "6": {
        // The audit queue: 1-4 answer the pair.
        const answer = document.querySelector("[data-audit-key='" + event.key + "']");
        if (answer) { answer.click(); break; }
        const choices = document.querySelectorAll("input[name='resolution']");
        const choice = choices[Number(event.key) - 1];
        if (choice) { choice.checked = true; choice.focus(); }
        break;
      }
      default: return;
    }
  });
})();
