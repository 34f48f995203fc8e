// Small progressive enhancement: Ctrl/Cmd+Enter submits a paste box.
document.querySelectorAll("form.paste textarea").forEach(function (box) {
  box.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { box.form.submit(); }
  });
});
