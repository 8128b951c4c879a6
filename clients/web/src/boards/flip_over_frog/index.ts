/**
 * The Flip Over Frog board (docs/rules/flip-over-frog.md, "Views" and "Legal commands").
 *
 * Draws the 4 × 4 board (stacks with their height, face-up frogs with their arrows, plain
 * backs), the player's hand and secret colour, the stack, the discards, the face-up counts and
 * whose turn it is. Picking a tile in hand lights the spaces `legal` offers it; pointing at a
 * lit space outlines the spaces its `preview` says it would flip. Changes animate: a tile
 * drops in where it was played, flipped spaces turn over, a snake strike flashes. At the end,
 * every dealt colour is revealed with its count.
 *
 * It holds no rules: lit spaces, previews and discards all come from `legal`; the commands it
 * sends are the expanded legal commands. What it remembers is only what the player saw (the
 * face a back had before it was flipped face down, rulebook decisions 12).
 *
 * Keys: 1–3 pick a tile in hand, arrows move on the board, Enter or Space plays on the focused
 * space, Escape drops the pick, D discards the picked snake when that is the legal move. A
 * picked tile with nowhere to go lights nothing, and the hint says which rule keeps it back.
 */

import "./frog.css";

import { h, replace, touchScreen } from "../../app/dom";
import { logOf, logPanel, seatNamer, showLog } from "../movelog";
import { expandOptions, type Option } from "../../protocol/legal";
import { typingInto } from "../keys";
import type { Board, BoardContext, BoardFactory, LegalEntry } from "../types";
import { describeTile, type Face, SIZE, tileElement, COLOURS, colourName } from "./tiles";
import { diffBoards, type Space, updateMemory } from "./changes";

interface Player {
  seat: number;
  hand_size: number;
  colour?: string;
}

interface FrogView {
  board: Space[];
  discards: Face[];
  stack_size: number;
  frogs_face_up: Record<string, number>;
  players: Player[];
  turn: number | null;
  plays: number;
  hand?: Face[];
  colour?: string;
  outcome?: { ranks: number[]; scores: number[]; winners: number[]; reason: string; details?: { colours?: string[] } };
}

const createBoard: BoardFactory = (root: HTMLElement, context: BoardContext): Board => {
  let view: FrogView | null = null;
  let options: Option[] = [];
  let selected: string | null = null;
  let focusSpace = 5;
  let busy = false;
  let memory = new Map<number, string>();

  const grid = h("div.fof-grid", { role: "grid", "aria-label": "The board, 4 by 4", "data-testid": "fof-board" });
  const spaces: HTMLButtonElement[] = [];
  for (let row = 0; row < SIZE; row++) {
    const line = h("div.fof-row", { role: "row" });
    for (let column = 0; column < SIZE; column++) {
      const index = row * SIZE + column;
      const button = h("button.fof-space", { type: "button", role: "gridcell", tabindex: index === focusSpace ? 0 : -1, "data-space": index });
      button.onclick = () => playAt(index);
      button.onmouseenter = () => showPreview(index);
      button.onfocus = () => {
        focusSpace = index;
        showPreview(index);
      };
      button.onmouseleave = () => showPreview(null);
      spaces.push(button);
      line.append(button);
    }
    grid.append(line);
  }
  grid.addEventListener("keydown", (event) => {
    const moves: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const row = Math.min(SIZE - 1, Math.max(0, Math.floor(focusSpace / SIZE) + move[0]));
    const column = Math.min(SIZE - 1, Math.max(0, (focusSpace % SIZE) + move[1]));
    moveFocus(row * SIZE + column);
  });

  const colourBox = h("div.fof-colour", { "data-testid": "fof-colour" });
  /** "Ada's", for the seat a replay is seen from. */
  const seatOwner = () => `${context.seatNames[context.seat ?? 0] ?? `Seat ${(context.seat ?? 0) + 1}`}'s`;
  const hand = h("div.fof-hand", { role: "group", "aria-label": "Your hand", "data-testid": "fof-hand" });
  const actions = h("div.fof-actions");
  const hint = h("p.fof-hint", { "aria-live": "polite", "data-testid": "fof-hint" });
  const players = h("ol.fof-players", { "aria-label": "Players" });
  const counts = h("div.fof-counts", { "aria-label": "Face-up frogs by colour" });
  const pile = h("div.fof-pile");
  const discards = h("div.fof-discards", { "aria-label": "Discards" });
  const reveal = h("div.fof-reveal", { "data-testid": "fof-reveal", hidden: true });
  const moveLog = logPanel("fof-log");
  const namer = { seat: seatNamer(context) };

  root.append(
    h(
      "div.fof",
      null,
      h("div.fof-main", null, h("div.fof-board-frame", null, grid, reveal), hint),
      h(
        "div.fof-side",
        null,
        context.seat !== null ? h("section.fof-mine", null, h("h4", null, context.seenAs ? `${seatOwner()} secret colour` : "Your secret colour"), colourBox, h("h4", null, context.seenAs ? `${seatOwner()} hand` : "Your hand"), hand, actions) : h("section.fof-mine", null, h("p.muted", null, "The public view: hands and colours stay hidden until the final reveal.")),
        h("section", null, h("h4", null, "Players"), players),
        h("section", null, h("h4", null, "Face-up frogs"), counts),
        h("section", null, h("h4", null, "Stack and discards"), pile, discards),
        moveLog.panel,
      ),
    ),
  );

  const onKey = (event: KeyboardEvent) => {
    if (typingInto(event.target)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (/^[1-3]$/.test(event.key) && view?.hand) {
      const tile = view.hand[Number(event.key) - 1];
      if (tile?.id) {
        select(tile.id);
        event.preventDefault();
      }
    } else if (event.key === "Escape" && selected) {
      select(null);
    } else if ((event.key === "d" || event.key === "D") && selected) {
      const discard = options.find((o) => o.command.type === "discard" && o.command.tile === selected);
      if (discard) send(discard);
    }
  };
  window.addEventListener("keydown", onKey);

  function moveFocus(index: number): void {
    spaces[focusSpace]!.tabIndex = -1;
    focusSpace = index;
    spaces[index]!.tabIndex = 0;
    spaces[index]!.focus();
  }

  /** The play options of the selected tile, by space. */
  function playsOf(tile: string | null): Map<number, Option> {
    const out = new Map<number, Option>();
    for (const option of options) {
      if (option.command.type === "play" && option.command.tile === tile) out.set(option.command.space as number, option);
    }
    return out;
  }

  function previewOf(option: Option): number[] {
    const preview = option.entry.preview;
    if (!Array.isArray(preview) || option.choice === null) return [];
    const flips = preview[option.choice];
    return Array.isArray(flips) ? (flips as number[]) : [];
  }

  function showPreview(space: number | null): void {
    const option = space === null ? undefined : playsOf(selected).get(space);
    const flips = new Set(option ? previewOf(option) : []);
    spaces.forEach((button, index) => button.classList.toggle("will-flip", flips.has(index)));
    if (option) hint.textContent = flips.size ? `Playing here flips ${flips.size} space${flips.size === 1 ? "" : "s"}: ${[...flips].map((s) => s + 1).join(", ")}.` : "Playing here flips nothing.";
  }

  function select(tile: string | null): void {
    selected = tile;
    drawHand();
    drawSpaces();
    if (tile) context.sound("tick");
    drawHint();
  }

  /** Why a tile of the hand has nowhere to go on the player's turn (null when it has, or when
   *  it is not their turn): the rule it waits on, as the rules say it. */
  function nowhere(tile: string): string | null {
    if (!view || context.readOnly || view.turn !== context.seat || options.length === 0) return null;
    if (options.some((o) => o.command.tile === tile)) return null;
    const face = view.hand?.find((t) => t.id === tile);
    if (face?.kind === "snake") return `${tile} cannot go anywhere: a Snake goes only on a face-up Frog, and none is on the board.`;
    return `${tile} cannot go anywhere: a Frog goes only on an empty space or a face-down tile, and none is left.`;
  }

  function send(option: Option): void {
    if (busy || context.readOnly) return;
    busy = true;
    root.classList.add("busy");
    context
      .act(option.command)
      .then(() => {
        selected = null;
      })
      .catch(() => context.sound("fail"))
      .finally(() => {
        busy = false;
        root.classList.remove("busy");
        drawHand();
        drawSpaces();
      });
  }

  function playAt(space: number): void {
    if (context.readOnly || !view || options.length === 0) return; // nothing to play now
    if (!selected) {
      hint.textContent = touchScreen() ? "Tap a tile in your hand first." : "Pick a tile from your hand first (1, 2 or 3).";
      return;
    }
    const option = playsOf(selected).get(space);
    if (!option) {
      hint.textContent = `Space ${space + 1} is not open to ${selected}: only the lit spaces are.`;
      return;
    }
    send(option);
  }

  function drawSpaces(changes?: ReturnType<typeof diffBoards>): void {
    if (!view) return;
    const lit = playsOf(selected);
    view.board.forEach((space, index) => {
      const button = spaces[index]!;
      const option = lit.get(index);
      const remembered = space.height === 1 && space.top?.kind === "back" ? memory.get(index) : undefined;
      const content: (HTMLElement | null)[] = [];
      if (space.top) content.push(tileElement(space.top, remembered));
      if (space.height > 1) content.push(h("span.fof-height", { "aria-hidden": "true" }, `×${space.height}`));
      replace(button, content);
      button.classList.toggle("lit", option !== undefined);
      button.classList.toggle("empty", space.height === 0);
      if (changes) {
        for (const kind of ["placed", "flipped", "struck"] as const) {
          button.classList.remove(kind);
          if (changes[kind].has(index)) {
            void button.offsetWidth; // restart the animation
            button.classList.add(kind);
          }
        }
      }
      const where = `Space ${index + 1}, row ${Math.floor(index / SIZE) + 1}, column ${(index % SIZE) + 1}`;
      const what = space.top ? describeTile(space.top) + (space.height > 1 ? `, stack of ${space.height}` : "") + (remembered ? `, ${context.seenAs ? "seen" : "you saw"} ${remembered} there` : "") : "empty";
      button.setAttribute("aria-label", `${where}: ${what}${option ? `. Play ${selected} here` : ""}`);
      button.disabled = false;
    });
  }

  function drawHand(): void {
    if (!view || context.seat === null) return;
    const mine = view.hand ?? [];
    const legalTiles = new Set(options.map((o) => o.command.tile as string));
    replace(
      hand,
      mine.length
        ? mine.map((tile, i) =>
            h(
              `button.fof-hand-tile${selected === tile.id ? ".selected" : ""}${legalTiles.has(tile.id ?? "") ? ".playable" : ""}`,
              {
                type: "button",
                "aria-pressed": String(selected === tile.id),
                "aria-label": `${i + 1}: ${describeTile(tile)}`,
                "data-tile": tile.id,
                disabled: context.readOnly,
                onclick: () => select(selected === tile.id ? null : (tile.id ?? null)),
              },
              tileElement(tile),
              h("kbd", null, String(i + 1)),
            ),
          )
        : h("p.muted", null, context.seenAs ? `${seatOwner()} hand is empty.` : "Your hand is empty."),
    );
    const discard = options.find((o) => o.command.type === "discard" && o.command.tile === selected);
    replace(
      actions,
      discard ? h("button.primary", { type: "button", "data-testid": "fof-discard", onclick: () => send(discard) }, `Discard ${selected} (D)`) : null,
      options.some((o) => o.command.type === "discard") && !discard ? h("p.muted", null, "No frog is face up: pick a snake to discard.") : null,
    );
  }

  function drawInfo(): void {
    if (!view) return;
    const names = context.seatNames;
    const revealed = view.outcome !== undefined;
    replace(
      players,
      view.players.map((player) =>
        h(
          `li${player.seat === view!.turn ? ".turn" : ""}${player.seat === context.seat ? ".me" : ""}`,
          { "data-seat": player.seat },
          h("span.fof-turn-mark", { "aria-hidden": "true" }, player.seat === view!.turn ? "▶" : ""),
          h("span", null, names[player.seat] ?? `Seat ${player.seat + 1}`, player.seat === context.seat && !context.seenAs ? " (you)" : ""),
          h("span.muted", null, ` · ${player.hand_size} in hand`),
          player.colour && (revealed || player.seat === context.seat) ? h(`span.fof-chip.c-${player.colour}`, null, `${COLOURS[player.colour]?.symbol ?? ""} ${colourName(player.colour)}`) : null,
        ),
      ),
    );
    replace(
      counts,
      Object.entries(view.frogs_face_up).map(([colour, count]) =>
        h(`span.fof-count.c-${colour}`, { title: `${colourName(colour)}: ${count} face up` }, `${COLOURS[colour]?.symbol ?? ""} ${count}`),
      ),
    );
    replace(pile, h("span.fof-stack", { "data-testid": "fof-stack" }, `Stack: ${view.stack_size} tile${view.stack_size === 1 ? "" : "s"}`), h("span.muted", null, ` · ${view.plays} plays`));
    replace(discards, view.discards.length ? view.discards.map((face) => tileElement(face, undefined, true)) : h("span.muted", null, "No discards yet."));
    if (context.seat !== null) {
      replace(
        colourBox,
        view.colour ? h(`div.fof-secret.c-${view.colour}`, null, h("span.fof-symbol", null, COLOURS[view.colour]?.symbol ?? "?"), h("span", null, colourName(view.colour))) : h("span.muted", null, "—"),
      );
    }
    drawHint();
    root.classList.toggle("my-turn", myTurn());
  }

  function myTurn(): boolean {
    return view !== null && view.turn === context.seat && context.seat !== null && options.length > 0;
  }

  /** The hint under the board: whose turn it is, what to pick next, or why the picked tile
   *  has nowhere to go. */
  function drawHint(): void {
    if (!view) return;
    const names = context.seatNames;
    const why = selected ? nowhere(selected) : null;
    if (view.outcome !== undefined) hint.textContent = "The game is over: every colour is revealed.";
    else if (context.readOnly) hint.textContent = view.turn !== null ? `${names[view.turn] ?? `Seat ${view.turn + 1}`} to play.` : "";
    else if (!myTurn()) hint.textContent = view.turn !== null ? `Waiting for ${names[view.turn] ?? `seat ${view.turn + 1}`}…` : "";
    else if (why) hint.textContent = why;
    else if (selected && playsOf(selected).size) hint.textContent = touchScreen() ? `Tap a lit space for ${selected}.` : `Pick a lit space for ${selected}: click it, or the arrows and Enter.`;
    else if (selected) hint.textContent = `No Frog is face up for ${selected} to go on: discard it${touchScreen() ? "" : " (D)"}.`;
    else hint.textContent = touchScreen() ? "Your turn: tap a tile in your hand." : "Your turn: pick a tile from your hand (1, 2 or 3).";
  }

  function drawReveal(): void {
    const outcome = view?.outcome;
    reveal.hidden = !outcome;
    grid.classList.toggle("revealed", Boolean(outcome));
    if (!outcome || !view) return;
    const names = context.seatNames;
    replace(
      reveal,
      h("h3", null, "The reveal"),
      h(
        "ol",
        null,
        view.players.map((player) => {
          const colour = player.colour ?? outcome.details?.colours?.[player.seat] ?? "";
          return h(
            `li.c-${colour}${outcome.winners.includes(player.seat) ? ".winner" : ""}`,
            { "data-seat": player.seat },
            h("span.fof-symbol", null, COLOURS[colour]?.symbol ?? "?"),
            h("span", null, `${names[player.seat] ?? `Seat ${player.seat + 1}`}: ${colourName(colour)}`),
            h("strong", null, ` ${outcome.scores[player.seat] ?? 0} frog${outcome.scores[player.seat] === 1 ? "" : "s"}`),
            outcome.winners.includes(player.seat) ? h("span.fof-crown", { "aria-label": "winner" }, " ♛") : null,
          );
        }),
      ),
    );
  }

  return {
    update(next: unknown, legal: readonly LegalEntry[], previous: unknown | null) {
      const before = (previous as FrogView | null) ?? view;
      view = next as FrogView;
      options = expandOptions(legal as Record<string, unknown>[]);
      if (selected && !options.some((o) => o.command.tile === selected)) selected = null;
      const changes = before ? diffBoards(before.board, view.board) : undefined;
      if (before) memory = updateMemory(memory, before.board, view.board, changes!);
      drawSpaces(previous ? changes : undefined);
      drawHand();
      drawInfo();
      drawReveal();
      showLog(moveLog.list, "flip_over_frog", logOf(view), namer);
      if (previous && changes) {
        if (changes.struck.size) context.sound("claim");
        else if (changes.flipped.size) context.sound("flip");
        else if (changes.placed.size) context.sound("move");
      }
    },
    destroy() {
      window.removeEventListener("keydown", onKey);
    },
  };
};

export default createBoard;
