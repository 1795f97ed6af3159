// A finished game's replay: the server replays the log to the step asked for; this draws that
// step's board with the game page's board code (the step's moves as arrows).
import { createBoard, renderLegend } from "./board.js";
import { playerNamer } from "./wording.js";

const board = JSON.parse(document.getElementById("board-data").textContent);
const step = JSON.parse(document.getElementById("replay-data").textContent);
const names = new Map(Object.entries(step.names).map(([seat, name]) => [Number(seat), name]));

createBoard(document.getElementById("board"), board, { colours: step.colours, playerOf: playerNamer(names) }).render(step.view, {
  notifications: step.notifications,
});
renderLegend(document.getElementById("legend"), step.view.seats, step.colours, names);
