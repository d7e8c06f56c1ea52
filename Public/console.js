// Progressive enhancement for the Stratus console. Every page works without it.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // Comparators that fit the chosen field.
  document.querySelectorAll("fieldset.filter").forEach(function (row) {
    var field = row.querySelector(".filter-field"), op = row.querySelector(".filter-op");
    if (!field || !op) return;
    function narrow() {
      var chosen = field.options[field.selectedIndex];
      var ops = chosen && chosen.dataset.ops ? chosen.dataset.ops.split(" ") : null;
      var firstFit = null;
      Array.prototype.forEach.call(op.options, function (o) {
        var fits = !ops || ops.indexOf(o.value || o.text) >= 0;
        o.hidden = !fits; o.disabled = !fits;
        if (fits && !firstFit) firstFit = o;
      });
      if (op.selectedOptions[0] && op.selectedOptions[0].disabled && firstFit) firstFit.selected = true;
    }
    field.addEventListener("change", narrow);
    narrow();
  });
  // Destructive forms ask first.
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) { if (!window.confirm(f.dataset.confirm)) e.preventDefault(); });
  });
  document.querySelectorAll("button[data-confirm]").forEach(function (b) {
    b.addEventListener("click", function (e) { if (!window.confirm(b.dataset.confirm)) e.preventDefault(); });
  });
  // List fields: add and remove items.
  document.querySelectorAll("fieldset.field.list").forEach(function (fs) {
    fs.querySelectorAll(".item").forEach(addRemove);
    var add = document.createElement("button");
    add.type = "button"; add.textContent = "Add item";
    add.addEventListener("click", function () {
      var items = fs.querySelectorAll(".item"), last = items[items.length - 1];
      var copy = last.cloneNode(true);
      copy.querySelectorAll("input, textarea").forEach(function (i) {
        if (i.type === "checkbox") { i.checked = false; i.value = String(items.length); } else { i.value = ""; }
      });
      last.after(copy); addRemove(copy);
      var first = copy.querySelector("input, textarea"); if (first) first.focus();
    });
    fs.appendChild(add);
    function addRemove(item) {
      if (item.querySelector(".remove")) return;
      var b = document.createElement("button");
      b.type = "button"; b.className = "remove"; b.textContent = "Remove item";
      b.addEventListener("click", function () {
        item.querySelectorAll("input, textarea").forEach(function (i) { if (i.type !== "checkbox") i.value = ""; });
        item.hidden = true;
      });
      item.appendChild(b);
    }
  });
  // A .ckdb file is read into the schema text box.
  document.querySelectorAll("input.ckdb-file").forEach(function (input) {
    input.addEventListener("change", function () {
      var file = input.files[0], box = input.form.querySelector("textarea[name=ckdb]");
      if (file && box) file.text().then(function (t) { box.value = t; });
    });
  });
});
