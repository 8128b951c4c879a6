/**
 * The generic board, for any game without its own: the view pretty-printed, and one button per
 * concrete legal command (compact `choose` entries expanded), each sending that command.
 * It holds no rules and knows no game: it is the protocol made visible.
 */

import { h, replace } from "../app/dom";
import { describeCommand, expandOptions } from "../protocol/legal";
import type { Board, BoardContext, BoardFactory, LegalEntry } from "./types";

const createBoard: BoardFactory = (root: HTMLElement, context: BoardContext): Board => {
  const commands = h("div.generic-commands", { role: "group", "aria-label": "Legal commands" });
  const view = h("pre.generic-view", { tabindex: 0, "aria-label": "The game's view" });
  const filter = h("input.generic-filter", { type: "search", placeholder: "Filter commands…", "aria-label": "Filter commands" });
  let legal: readonly LegalEntry[] = [];

  const draw = () => {
    const options = expandOptions(legal as Record<string, unknown>[]);
    const wanted = filter.value.trim().toLowerCase();
    const shown = options.filter((option) => describeCommand(option.command).toLowerCase().includes(wanted));
    replace(
      commands,
      context.readOnly
        ? h("p.muted", null, context.seat === null ? "Watching: the public view." : "Replay: nothing can be sent.")
        : options.length === 0
          ? h("p.muted", null, "Nothing to do right now.")
          : [
              h("p.muted", null, `${options.length} legal command${options.length === 1 ? "" : "s"}`),
              shown.slice(0, 300).map((option) =>
                h(
                  "button.command",
                  {
                    type: "button",
                    onclick: () => {
                      context.sound("move");
                      context.act(option.command).catch(() => context.sound("fail"));
                    },
                  },
                  describeCommand(option.command),
                ),
              ),
              shown.length > 300 ? h("p.muted", null, `…and ${shown.length - 300} more; filter to find one.`) : null,
            ],
    );
  };
  filter.oninput = draw;

  root.append(
    h("div.generic-board", null, h("section.generic-side", null, h("h3", null, "Your commands"), filter, commands), h("section.generic-main", null, h("h3", null, "View"), view)),
  );

  return {
    update(next: unknown, nextLegal: readonly LegalEntry[]) {
      legal = nextLegal;
      view.textContent = JSON.stringify(next, null, 2);
      draw();
    },
    destroy() {
      filter.oninput = null;
    },
  };
};

export default createBoard;
