// The UI's only script besides htmx. Templates declare behaviour with data- attributes instead of inline
// handlers, so the Content-Security-Policy can allow scripts from this origin only (docs/security.md).
//   <select data-navigate="/twin/{}/">   go to the URL with {} replaced by the chosen value (URL-encoded)
//   <select data-autosubmit>              submit the select's form when it changes
//   <form data-confirm="Delete x?">       ask before submitting
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
