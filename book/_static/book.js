// ICML 2026 in Code: an inline formula wider than its column (a phone's, say) scrolls inside
// its own box instead of widening the page; display formulas do so by CSS (book.css). Only
// such formulas change, so every other formula keeps its baseline.
(function () {
  "use strict";
  function fit() {
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
  function start() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    }
  }
  window.addEventListener("load", start);
  window.addEventListener("resize", fit);
})();
