// Figures legible at the column width. A figure much wider than tall (a row of panels)
// is shown at a readable height in a box of its own that scrolls sideways; any figure
// that links to its own file opens full size in an overlay (Escape or a click closes it).
(function () {
  "use strict";
  var WIDE = 3; // width / height above which a row of panels is scrolled, not shrunk
  var MIN_HEIGHT = 240; // px: the height a wide figure is shown at, at least

  function widen(img) {
    if (img.dataset.figure || !img.naturalWidth) return;
    img.dataset.figure = "1";
    var ratio = img.naturalWidth / img.naturalHeight;
    if (ratio < WIDE || img.clientHeight >= MIN_HEIGHT) return;
    var host = img.parentElement.tagName === "A" ? img.parentElement : img;
    var box = document.createElement("div");
    box.className = "figure-scroll";
    host.parentElement.insertBefore(box, host);
    box.appendChild(host);
    img.style.height = Math.min(img.naturalHeight, MIN_HEIGHT) + "px";
  }

  function overlay(src, alt) {
    var layer = document.createElement("div");
    layer.className = "figure-overlay";
    layer.setAttribute("role", "dialog");
    var img = document.createElement("img");
    img.src = src;
    img.alt = alt || "";
    layer.appendChild(img);
    function close() {
      layer.remove();
      document.removeEventListener("keydown", onKey);
    }
    function onKey(event) { if (event.key === "Escape") close(); }
    layer.addEventListener("click", close);
    document.addEventListener("keydown", onKey);
    document.body.appendChild(layer);
  }

  function setup() {
    document.querySelectorAll(".md-content img").forEach(function (img) {
      if (img.complete) widen(img);
      else img.addEventListener("load", function () { widen(img); });
      var link = img.parentElement;
      if (link.tagName === "A" && link.getAttribute("href") === img.getAttribute("src")) {
        link.classList.add("figure-link");
        link.addEventListener("click", function (event) {
          event.preventDefault();
          overlay(img.src, img.alt);
        });
      }
    });
  }

  if (typeof document$ !== "undefined") document$.subscribe(setup);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
