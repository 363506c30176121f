// The UI's only script besides htmx. Templates declare behaviour with data- attributes instead of inline
// handlers, so the Content-Security-Policy can allow scripts from this origin only (docs/security.md).
//   <select data-navigate="/twin/{}/">   go to the URL with {} replaced by the chosen value (URL-encoded)
//   <select data-autosubmit>              submit the select's form when it changes
//   <form data-confirm="Delete x?">       ask before submitting
//   <svg data-zoom viewBox="...">         shown whole (fitted) in its element; wheel zooms around the pointer,
//                                         drag pans (the viewBox, not the page)
//   <div data-zoom-for="ID"><button data-zoom-step="1.25">   zoom the svg[data-zoom] inside #ID about its
//                                         centre (0: fit the whole drawing); <button data-zoom-actual>: 1:1
//   <input data-filter="ID">              show only the <option>s / rows of #ID whose text contains the words
//   <button data-select-shown="ID">       select every shown option of the multi-select #ID; data-clear="ID": none
//   <span data-selected-count="ID">       kept up to date with "N selected" of #ID
// Listeners sit on the document, so content swapped in by htmx behaves the same.
"use strict";

document.addEventListener("change", (event) => {
  const element = event.target;
  if (!(element instanceof HTMLSelectElement)) return;
  if (element.dataset.navigate !== undefined) {
    window.location.href = element.dataset.navigate.replace("{}", encodeURIComponent(element.value));
  } else if (element.hasAttribute("data-autosubmit") && element.form) {
    element.form.submit();
  }
});

document.addEventListener("submit", (event) => {
  const message = event.target.dataset ? event.target.dataset.confirm : undefined;
  if (message !== undefined && !window.confirm(message)) event.preventDefault();
});

// ------------------------------------------------------------------ pan and zoom of large SVG pictures
// The <svg> element is a fixed window onto the drawing; its viewBox is the camera. The drawing's own box (the
// viewBox it was served with) is kept in data-home. The camera always has the window's aspect ratio, so one
// picture unit is the same number of pixels across and down and the zoom arithmetic is exact.
function home(svg) {
  if (svg.dataset.home === undefined) svg.dataset.home = svg.getAttribute("viewBox");
  const [x, y, w, h] = svg.dataset.home.split(/[ ,]+/).map(Number);
  return { x, y, w, h };
}

function viewBox(svg) {
  home(svg);
  const [x, y, w, h] = svg.getAttribute("viewBox").split(/[ ,]+/).map(Number);
  return { x, y, w, h };
}

function windowSize(svg) {
  const rect = svg.getBoundingClientRect();
  return { width: rect.width || 1, height: rect.height || 1 };
}

// The camera that shows the whole drawing, centred: the drawing scaled to the window (never above 1:1 when
// the drawing is smaller than the window, so a small fabric is not blown up).
function fitBox(svg) {
  const whole = home(svg), size = windowSize(svg);
  const scale = Math.min(size.width / whole.w, size.height / whole.h, 1);
  const w = size.width / scale, h = size.height / scale;
  return { x: whole.x + (whole.w - w) / 2, y: whole.y + (whole.h - h) / 2, w, h };
}

// Along one axis: a camera larger than the drawing keeps all of it in view, a smaller one stays on the drawing,
// so panning or zooming out never slides the picture off the window (and the point under the pointer stays put
// unless that would).
function clampAxis(position, size, start, length) {
  const low = Math.min(start, start + length - size), high = Math.max(start, start + length - size);
  return Math.min(Math.max(position, low), high);
}

function setViewBox(svg, box) {
  const whole = home(svg), fit = fitBox(svg);
  // at most 24x in (from the whole drawing), never further out than the whole drawing
  const w = Math.min(Math.max(box.w, Math.min(whole.w, fit.w) / 24), fit.w);
  const h = w * fit.h / fit.w;
  // a clamped size keeps the box's centre
  const x = clampAxis(box.x + (box.w - w) / 2, w, whole.x, whole.w);
  const y = clampAxis(box.y + (box.h - h) / 2, h, whole.y, whole.h);
  svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
  svg.dataset.fitted = w >= fit.w - 0.5 ? "1" : "0";
}

function fit(svg) {
  setViewBox(svg, fitBox(svg));
}

function zoomAt(svg, factor, clientX, clientY) {
  const box = viewBox(svg), fitted = fitBox(svg);
  const rect = svg.getBoundingClientRect();
  // the picture point under the pointer stays under it; the factor is limited first, so a zoom stopped at a
  // limit still keeps that point in place
  const w = Math.min(Math.max(box.w / factor, Math.min(home(svg).w, fitted.w) / 24), fitted.w);
  const h = w * fitted.h / fitted.w;
  const fx = rect.width ? (clientX - rect.left) / rect.width : 0.5;
  const fy = rect.height ? (clientY - rect.top) / rect.height : 0.5;
  const px = box.x + fx * box.w, py = box.y + fy * box.h;
  setViewBox(svg, { x: px - fx * w, y: py - fy * h, w, h });
}

// natural size (one picture unit per pixel) around the window's centre: the labels at their designed size
function actualSize(svg) {
  const box = viewBox(svg), size = windowSize(svg);
  setViewBox(svg, { x: box.x + (box.w - size.width) / 2, y: box.y + (box.h - size.height) / 2,
                    w: size.width, h: size.height });
}

function fitAll() {
  for (const svg of document.querySelectorAll("svg[data-zoom]")) {
    if (svg.dataset.fitted !== "0") fit(svg);  // a fitted (or new) picture stays fitted; a zoomed one stays
  }
}
document.addEventListener("DOMContentLoaded", fitAll);
document.addEventListener("htmx:afterSwap", fitAll);
window.addEventListener("resize", fitAll);

document.addEventListener("wheel", (event) => {
  const svg = event.target instanceof Element ? event.target.closest("svg[data-zoom]") : null;
  if (!svg) return;
  event.preventDefault();
  zoomAt(svg, event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX, event.clientY);
}, { passive: false });

let drag = null;
document.addEventListener("pointerdown", (event) => {
  const svg = event.target instanceof Element ? event.target.closest("svg[data-zoom]") : null;
  if (!svg || event.button !== 0) return;
  drag = { svg, x: event.clientX, y: event.clientY, box: viewBox(svg), moved: false };
});
document.addEventListener("pointermove", (event) => {
  if (!drag) return;
  const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
  if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;  // a click, not a drag
  drag.moved = true;
  const rect = drag.svg.getBoundingClientRect();
  const scale = drag.box.w / (rect.width || 1);
  setViewBox(drag.svg, { x: drag.box.x - dx * scale, y: drag.box.y - dy * scale, w: drag.box.w, h: drag.box.h });
});
let suppressClickUntil = 0;
document.addEventListener("pointerup", () => {
  // the click that ends a drag must not open the link or switch under the pointer
  if (drag && drag.moved) suppressClickUntil = Date.now() + 300;
  drag = null;
});
document.addEventListener("click", (event) => {
  if (Date.now() < suppressClickUntil && event.target instanceof Element && event.target.closest("svg[data-zoom]")) {
    event.preventDefault();
    event.stopPropagation();
  }
}, { capture: true });

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-zoom-step], [data-zoom-actual]") : null;
  if (!button) return;
  const tools = button.closest("[data-zoom-for]");
  const svg = tools && document.querySelector(`#${CSS.escape(tools.dataset.zoomFor)} svg[data-zoom]`);
  if (!svg) return;
  if (button.dataset.zoomActual !== undefined) {
    actualSize(svg);
    return;
  }
  const step = Number(button.dataset.zoomStep);
  if (step === 0) {
    fit(svg);
  } else {
    const rect = svg.getBoundingClientRect();
    zoomAt(svg, step, rect.left + rect.width / 2, rect.top + rect.height / 2);  // the centre stays put
  }
});

// ------------------------------------------------------------------ filter a long list as you type
document.addEventListener("input", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.dataset.filter === undefined) return;
  const list = document.getElementById(input.dataset.filter);
  if (!list) return;
  const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const item of list.querySelectorAll("option, tbody tr, li")) {
    // a chosen option stays visible, so a filter never hides what will be saved
    const keep = (item instanceof HTMLOptionElement && item.selected)
      || words.every((word) => item.textContent.toLowerCase().includes(word));
    item.hidden = !keep;
    if (keep) shown += 1;
  }
  const counter = document.querySelector(`[data-filter-count="${CSS.escape(input.dataset.filter)}"]`);
  if (counter) counter.textContent = `${shown} shown`;
});

function countSelected(select) {
  const counter = document.querySelector(`[data-selected-count="${CSS.escape(select.id)}"]`);
  if (counter) counter.textContent = `${select.selectedOptions.length} of ${select.options.length} selected`;
}

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-select-shown], [data-clear]") : null;
  if (!button) return;
  const select = document.getElementById(button.dataset.selectShown || button.dataset.clear);
  if (!(select instanceof HTMLSelectElement)) return;
  const choose = button.dataset.selectShown !== undefined;
  for (const option of select.options) {
    if (choose ? !option.hidden : true) option.selected = choose;
  }
  select.dispatchEvent(new Event("change", { bubbles: true }));
});

document.addEventListener("change", (event) => {
  if (event.target instanceof HTMLSelectElement && event.target.multiple) countSelected(event.target);
});

function countAll() {
  for (const counter of document.querySelectorAll("[data-selected-count]")) {
    const select = document.getElementById(counter.dataset.selectedCount);
    if (select instanceof HTMLSelectElement) countSelected(select);
  }
}
document.addEventListener("DOMContentLoaded", countAll);
document.addEventListener("htmx:afterSwap", countAll);
