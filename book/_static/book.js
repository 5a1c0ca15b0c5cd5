// ICML 2026 in Code: an inline formula wider than its column (a phone's, say) scrolls inside
// its own box instead of widening the page; display formulas do so by CSS (book.css). Only
// such formulas change, so every other formula keeps its baseline. A table that scrolls
// inside its box (a wide one on a phone) can be focused and scrolled from the keyboard
// (WCAG 2.1.1); it keeps its table role, named by its caption or section heading.
(function () {
  "use strict";
  function fitMath() {
    var inline = document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])');
    inline.forEach(function (m) {
      m.classList.remove("math-wide");
      var block = m.parentElement;
      while (block && getComputedStyle(block).display.indexOf("inline") === 0) {
        block = block.parentElement;
      }
      if (block && m.getBoundingClientRect().width > block.clientWidth) {
        m.classList.add("math-wide");
      }
    });
  }
  function tableName(t) {
    var caption = t.querySelector("caption");
    if (caption) return caption.textContent.trim();
    var section = t.closest("section");
    var heading = section && section.querySelector("h1, h2, h3, h4");
    return heading ? heading.textContent.replace(/#$/, "").trim() : "table";
  }
  function fitTables() {
    document.querySelectorAll(".bd-article table").forEach(function (t) {
      if (t.scrollWidth > t.clientWidth + 1) {
        t.setAttribute("tabindex", "0");
        t.setAttribute("data-scrolls", "");
        t.setAttribute("aria-label", tableName(t) + " (scrolls sideways)");
      } else if (t.hasAttribute("data-scrolls")) {
        t.removeAttribute("tabindex");
        t.removeAttribute("aria-label");
        t.removeAttribute("data-scrolls");
      }
    });
  }
  function fit() {
    fitMath();
    fitTables();
  }
  function start() {
    fitTables();
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  }
  window.addEventListener("load", start);
  window.addEventListener("resize", fit);
})();
