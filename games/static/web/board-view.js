// How the board is looked at, not what it shows: zoom (buttons, pinch, Ctrl + wheel) into a
// frame that scrolls, and an optional four-colour deck for the suits. Both are remembered per
// browser.
const ZOOMS = [1, 1.5, 2, 3];
const FOUR_COLOURS = { S: "#111111", H: "#c62828", C: "#1b7f3b", D: "#1565c0" };
const KEY = "bahama-taxi:board-view";

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

function save(settings) {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // not remembered: the choice lasts as long as the page
  }
}

export function setUpBoardView({ frame, svg, zoomIn, zoomOut, zoomReset, fourColours, twoColours }) {
  const settings = { zoom: 1, four: false, ...load() };

  function applyZoom(level, centre = null) {
    const before = svg.getBoundingClientRect();
    const anchor = centre || { x: frame.clientWidth / 2, y: frame.clientHeight / 2 };
    const fx = (frame.scrollLeft + anchor.x) / (before.width || 1);
    const fy = (frame.scrollTop + anchor.y) / (before.height || 1);
    settings.zoom = Math.min(ZOOMS[ZOOMS.length - 1], Math.max(1, level));
    svg.style.width = `${settings.zoom * 100}%`;
    frame.dataset.zoom = String(settings.zoom);
    const after = svg.getBoundingClientRect();
    frame.scrollLeft = fx * after.width - anchor.x;
    frame.scrollTop = fy * after.height - anchor.y;
    zoomOut.disabled = settings.zoom <= 1;
    zoomReset.disabled = settings.zoom <= 1;
    zoomIn.disabled = settings.zoom >= ZOOMS[ZOOMS.length - 1];
    save(settings);
  }

  const next = (direction) => {
    const index = ZOOMS.findIndex((z) => z >= settings.zoom - 1e-9);
    return ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, index + direction))];
  };
  zoomIn.addEventListener("click", () => applyZoom(next(+1)));
  zoomOut.addEventListener("click", () => applyZoom(next(-1)));
  zoomReset.addEventListener("click", () => applyZoom(1));
  frame.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;
    event.preventDefault();
    const box = frame.getBoundingClientRect();
    applyZoom(settings.zoom * (event.deltaY < 0 ? 1.25 : 0.8), { x: event.clientX - box.left, y: event.clientY - box.top });
  }, { passive: false });

  // pinch: two fingers on the board scale it; one finger scrolls the frame as usual
  const touches = new Map();
  let pinch = null;
  frame.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "touch") return;
    touches.set(event.pointerId, event);
    if (touches.size === 2) {
      const [a, b] = [...touches.values()];
      pinch = { distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY), zoom: settings.zoom };
    }
  });
  frame.addEventListener("pointermove", (event) => {
    if (!touches.has(event.pointerId)) return;
    touches.set(event.pointerId, event);
    if (pinch && touches.size === 2) {
      const [a, b] = [...touches.values()];
      const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
      const box = frame.getBoundingClientRect();
      const centre = { x: (a.clientX + b.clientX) / 2 - box.left, y: (a.clientY + b.clientY) / 2 - box.top };
      applyZoom(pinch.zoom * (distance / (pinch.distance || 1)), centre);
    }
  });
  const lift = (event) => {
    touches.delete(event.pointerId);
    if (touches.size < 2) pinch = null;
  };
  frame.addEventListener("pointerup", lift);
  frame.addEventListener("pointercancel", lift);

  function applyColours() {
    const colours = settings.four ? FOUR_COLOURS : twoColours;
    for (const disc of svg.querySelectorAll(".area")) {
      const suit = disc.dataset.suit;
      disc.querySelector(".area-disc")?.setAttribute("stroke", colours[suit]);
      disc.querySelector("text")?.setAttribute("fill", colours[suit]);
    }
    fourColours.checked = settings.four;
    save(settings);
  }
  fourColours.addEventListener("change", () => {
    settings.four = fourColours.checked;
    applyColours();
  });

  applyZoom(settings.zoom);
  applyColours();
}
