// The replay viewer's keys: ArrowLeft / ArrowRight step, Home / End jump to the ends.
// Each key follows the navigation link that carries it, so the keys and the links never differ.
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (event.target.closest && event.target.closest("input, textarea, select, [contenteditable]")) return;
  const link = document.querySelector(`a[data-replay-key="${event.key}"]`);
  if (!link) return;
  event.preventDefault();
  window.location.assign(link.href);
});
