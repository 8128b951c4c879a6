/**
 * The how-to-play pages (`#/howto/<game>`): one per game, from src/app/howto_content.ts, with
 * tabs to the others. The text is loaded on demand, so the lobby does not carry it.
 */

import { h, replace } from "./dom";
import type { Page } from "./page";
import { setTitle } from "./title";

export class HowToPage implements Page {
  readonly element = h("main.page.howto", { "data-page": "howto" });

  constructor(game: string) {
    replace(this.element, h("p.muted", null, "Loading…"));
    void Promise.all([import("./howto_content"), import("./howto_diagrams")]).then(([{ HOW_TO }, { howToDiagram }]) => {
      const page = HOW_TO.find((item) => item.id === game) ?? HOW_TO[0]!;
      setTitle(`How to play ${page.name}`);
      replace(
        this.element,
        h(
          "nav.tabs.howto-tabs",
          { "aria-label": "Games" },
          HOW_TO.map((item) => h(`a.tab${item.id === page.id ? ".active" : ""}`, { href: `#/howto/${item.id}`, "aria-current": item.id === page.id ? "page" : undefined }, item.name)),
        ),
        h(
          "article.panel.rules",
          { "data-game": page.id },
          h("h2.neon", null, page.name),
          h("p.tagline", null, page.tagline),
          h("p.muted", null, page.players),
          howToDiagram(page.id),
          page.sections.map((section) =>
            h(
              "section",
              null,
              h("h3", null, section.title),
              section.body.map((part) => (Array.isArray(part) ? h("ul", null, part.map((item) => h("li", null, item))) : h("p", null, part))),
            ),
          ),
          h("p", null, h("a.button", { href: "#/" }, "Back to the lobby")),
        ),
      );
    });
  }

  destroy(): void {
    setTitle(null);
  }
}
