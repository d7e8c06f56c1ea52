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
  // The sidebar is a folded menu on a narrow window (without this script it stays open, which also works).
  var menu = document.querySelector("nav.sidebar > details.menu");
  if (menu && window.matchMedia("(max-width: 48rem)").matches) menu.open = false;
  // Keyboard shortcuts: "/" finds, "g" then a letter goes to a page (the sidebar's data-key links), "?" lists them.
  var pending = false, timer = null;
  function typing(t) { return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)); }
  function searchField() {
    return document.querySelector("main [data-search], main input[type=search], main form.query input[type=text], main form.query input:not([type=hidden]), main input[type=text]");
  }
  function help() {
    var d = document.querySelector("dialog.shortcuts");
    if (!d) {
      d = document.createElement("dialog");
      d.className = "shortcuts"; d.setAttribute("aria-labelledby", "shortcuts-title");
      var rows = [["/", "Focus the page's search or query field"], ["?", "Show these shortcuts"]];
      document.querySelectorAll("nav.sidebar a[data-key]").forEach(function (a) { rows.push(["g " + a.dataset.key, "Go to " + a.textContent.trim()]); });
      var h = document.createElement("h2"); h.id = "shortcuts-title"; h.textContent = "Keyboard shortcuts"; d.appendChild(h);
      var dl = document.createElement("dl"); dl.className = "fields";
      rows.forEach(function (r) {
        var dt = document.createElement("dt"), dd = document.createElement("dd");
        r[0].split(" ").forEach(function (k, i) { if (i) dt.appendChild(document.createTextNode(" then ")); var kb = document.createElement("kbd"); kb.textContent = k; dt.appendChild(kb); });
        dd.textContent = r[1]; dl.appendChild(dt); dl.appendChild(dd);
      });
      d.appendChild(dl);
      var close = document.createElement("button"); close.type = "button"; close.textContent = "Close";
      close.addEventListener("click", function () { d.close(); });
      d.appendChild(close);
      document.body.appendChild(d);
    }
    if (d.open) d.close(); else d.showModal();
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (pending) {
      pending = false; clearTimeout(timer);
      var link = document.querySelector('nav.sidebar a[data-key="' + e.key + '"]');
      if (link) { e.preventDefault(); window.location.href = link.href; }
      return;
    }
    if (e.key === "/") { var f = searchField(); if (f) { e.preventDefault(); f.focus(); if (f.select) f.select(); } }
    else if (e.key === "?") { e.preventDefault(); help(); }
    else if (e.key === "g") { pending = true; timer = setTimeout(function () { pending = false; }, 1500); }
  });
});
