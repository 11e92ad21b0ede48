package browser

// LayoutProblems is a script for Eval: it lists every element matching
// its first argument (the panels) that overflows horizontally
// (scrollWidth > clientWidth), and every text of an SVG picture whose box
// leaves the picture's viewBox, each as a line naming what and where.
const LayoutProblems = `
var out = [];
document.querySelectorAll(arguments[0]).forEach(function (p) {
  if (p.scrollWidth > p.clientWidth + 1) {
    out.push("panel " + (p.id || p.className || p.tagName) + " overflows: scrollWidth " + p.scrollWidth + " > clientWidth " + p.clientWidth);
  }
});
document.querySelectorAll("svg").forEach(function (svg, i) {
  var vb = svg.viewBox && svg.viewBox.baseVal;
  if (!vb || !vb.width) { return; }
  svg.querySelectorAll("text").forEach(function (t) {
    var b = t.getBBox();
    if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y + b.height > vb.y + vb.height + 0.5) {
      out.push("svg " + i + " (" + svg.getAttribute("class") + ") text " + JSON.stringify(t.textContent) + " leaves the box: x " + b.x.toFixed(1) + ".." + (b.x + b.width).toFixed(1) + " of " + vb.width);
    }
  });
});
return out;`
