// Typesets the maths of pymdownx.arithmatex (generic mode) with the KaTeX vendored under
// javascripts/vendor/katex: no network. Inline maths is <span class="arithmatex">\(..\)</span>,
// display maths <div class="arithmatex">\[..\]</div>. An expression KaTeX cannot parse is left
// as its TeX source, in the error colour, with the error as its tooltip.
(function () {
  "use strict";
  function typeset(root) {
    if (typeof katex === "undefined") return;
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.dataset.typeset) return;
      var tex = el.textContent.trim();
      var display = el.tagName === "DIV" || tex.startsWith("\\[");
      if (/^\\[([]/.test(tex) && /\\[)\]]$/.test(tex)) tex = tex.slice(2, -2);
      katex.render(tex, el, {
        displayMode: display,
        throwOnError: false,
        errorColor: "#cc0000",
      });
      el.dataset.typeset = "1";
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function () { typeset(document); });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { typeset(document); });
  } else {
    typeset(document);
  }
})();
