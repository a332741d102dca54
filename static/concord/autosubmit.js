// A <select data-autosubmit> sends its form as soon as it changes (the language switcher,
// the version and filter pickers). Listening on the document also covers selects that
// htmx swaps in later. The pages carry no inline handlers: the Content-Security-Policy
// allows scripts from this site's files only.
document.addEventListener("change", (event) => {
  const field = event.target;
  if (field instanceof HTMLSelectElement && field.hasAttribute("data-autosubmit") && field.form) {
    field.form.submit();
  }
});
