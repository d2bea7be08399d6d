// Keyboard shortcuts for the review pages. Queue: j / k move, Enter opens. Cluster page:
// a accept, e edit the merged text, d dismiss. Everywhere: ? shows the help. Keys are
// ignored while typing in a field.
(function () {
  "use strict";
  function typing(event) {
    const tag = event.target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.target.isContentEditable;
  }
  function rows() { return Array.from(document.querySelectorAll("#queue tbody tr[data-href]")); }
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
    if (!form) return;
    // A protected or guarded cluster is decided on purpose, never by a stray key.
    const flagged = document.querySelector("[data-flagged]");
    if (flagged && !window.confirm("This cluster is flagged (" + flagged.textContent + "). Decide it anyway?")) return;
    form.requestSubmit();
  }
  document.addEventListener("keydown", function (event) {
    if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    const help = document.getElementById("keys-help");
    switch (event.key) {
      case "j": select(current + 1); break;
      case "k": select(current - 1); break;
      case "Enter": if (current >= 0) window.location = rows()[current].dataset.href; break;
      case "a": submit("form[data-key='accept']"); break;
      case "d": submit("form[data-key='dismiss']"); break;
      case "e": { const box = document.querySelector("textarea[name='text']"); if (box) { event.preventDefault(); box.focus(); } break; }
      case "?": if (help) help.hidden = !help.hidden; break;
      default: return;
    }
  });
})();
