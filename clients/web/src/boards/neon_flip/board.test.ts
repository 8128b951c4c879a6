// @vitest-environment jsdom
/**
 * The Neon Flip board in jsdom, on views and legal lists the real engine made (fixtures.py).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { expandOptions } from "../../protocol/legal";
import { card, fixture, type Harness, lit, mount, press, settle, tile } from "./testkit";
import { aiCardSlots } from "./view";

let harness: Harness | null = null;

function colours(h: Harness): string[] {
  return [...h.root.querySelectorAll<HTMLElement>(".nf-tile")].map((t) => t.dataset.colour ?? "");
}

function open(name: string, options: Parameters<typeof mount>[0] = {}): Harness {
  harness = mount(options);
  harness.show(fixture(name));
  return harness;
}

afterEach(() => {
  harness?.destroy();
  harness = null;
  vi.useRealTimers();
});

describe("drawing", () => {
  it("draws the 6 × 6 grid with a symbol per colour and the locks", () => {
    const f = fixture("main");
    f.view.locks = [{ slot: 4, seat: 1 }];
    harness = mount();
    harness.show(f);
    const tiles = harness.root.querySelectorAll(".nf-tile");
    expect(tiles).toHaveLength(36);
    f.view.board.forEach((colour, i) => {
      const t = tile(harness!.root, i + 1);
      expect(t.dataset.colour).toBe(colour);
      expect(t.classList.contains(`c-${colour}`)).toBe(true);
      expect(t.querySelector(".nf-symbol")!.textContent).toBe(colour === "cyan" ? "◆" : colour === "pink" ? "●" : colour === "green" ? "▲" : "★");
    });
    expect(tile(harness.root, 4).querySelector(".nf-lock")!.textContent).toContain("②");
    expect(tile(harness.root, 4).getAttribute("aria-label")).toContain("locked by Bob");
  });

  it("shows the hand with costs, the market, Energy, VP and the objective", () => {
    const h = open("main");
    const view = fixture("main").view;
    const hand = [...h.root.querySelectorAll<HTMLElement>(".nf-hand .nf-card")];
    expect(hand.map((c) => c.dataset.card)).toEqual(view.you!.hand.map((c) => c.id));
    expect(hand[0]!.querySelector(".nf-cost")!.textContent).toBe(`${view.you!.hand[0]!.cost}⚡`);
    expect(h.root.querySelectorAll(".nf-market .nf-card.buyable")).toHaveLength(3);
    expect(h.root.querySelector("[data-testid=nf-energy]")!.textContent).toBe(`⚡ ${view.players[0]!.energy}`);
    expect(h.root.querySelector("[data-testid=nf-objective]")!.textContent).toContain(view.you!.objective!.name);
    expect(h.root.querySelectorAll(".nf-player")).toHaveLength(2);
    expect(h.root.querySelector(".nf-player.me .nf-chip")!.textContent).toBe("◆ Cyber Cyan");
    expect(h.root.querySelector(".nf-status")!.textContent).toBe("Your turn.");
    expect(h.root.querySelector(".nf-grid-frame")!.classList.contains("glow-cyan")).toBe(true);
  });

  it("a spectator sees no hand and can do nothing", () => {
    const h = open("main_spectator", { seat: null, readOnly: true });
    expect(h.root.querySelector(".nf-hand")).toBeNull();
    expect(h.root.textContent).toContain("The public view");
    tile(h.root, 1).click();
    expect(h.acts).toEqual([]);
  });

  it("shows team mode with team totals", () => {
    const h = open("teams");
    expect(h.root.querySelector("[data-testid=nf-teams-badge]")).not.toBeNull();
    const heads = [...h.root.querySelectorAll(".nf-team-head")].map((e) => e.textContent);
    expect(heads).toHaveLength(2);
    expect(heads[0]).toContain("Cyber Cyan + ▲ Laser Green");
    expect(heads[1]).toContain("Electric Pink + ★ Solar Yellow");
  });

  it("shows Overdrive's clock counting down on the server clock", () => {
    const f = fixture("overdrive");
    const h = mount({ now: f.view.clock!.deadline! - 125 });
    harness = h;
    h.show(f);
    expect(h.root.querySelector("[data-testid=nf-clock]")!.textContent).toBe("◷ 2:05");
    expect(h.root.querySelector("[data-testid=nf-mode]")!.textContent).toContain("24 tiles");
  });

  it("draws obstacles' neutral colours", () => {
    const h = open("obstacles");
    expect(h.root.querySelectorAll(".nf-tile.c-green, .nf-tile.c-yellow").length).toBe(12);
    expect(h.root.textContent).toContain("Obstacles");
  });
});

describe("playing from legal", () => {
  it("choosing an objective sends choose_objective", async () => {
    const h = open("objectives");
    const offers = [...h.root.querySelectorAll<HTMLButtonElement>(".nf-objective-offer")];
    expect(offers).toHaveLength(2);
    // Each offer says what it asks, not only its name.
    for (const offer of offers) expect(offer.querySelector(".nf-objective-text")?.textContent).toMatch(/\.$/);
    offers[1]!.click();
    await settle();
    expect(h.acts).toEqual([{ type: "choose_objective", objective: offers[1]!.dataset.objective }]);
  });

  it("a card lights exactly its legal tiles, previews on hover, and plays on click", async () => {
    const f = fixture("main");
    const h = open("main");
    const ring = f.legal.find((e) => String(e.card).startsWith("perimeter_ring"))!;
    card(h.root, String(ring.card)).click();
    expect(lit(h.root)).toEqual((ring.choose as { slot: number[] }).slot);
    const preview = (ring.preview as number[][])[13]!; // slot 14
    tile(h.root, 14).dispatchEvent(new MouseEvent("mouseenter"));
    const shown = [...h.root.querySelectorAll<HTMLElement>(".nf-tile.nf-preview")].map((t) => Number(t.dataset.slot));
    expect(shown).toEqual(preview);
    expect(h.root.querySelector(".nf-hint")!.textContent).toContain(`changes ${preview.length} tiles`);
    tile(h.root, 14).click();
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: ring.card, slot: 14 }]);
  });

  it("a Cascade Surge previews its first cascade choices", () => {
    const f = fixture("main");
    const h = open("main");
    const surge = f.legal.find((e) => String(e.card).startsWith("cascade_surge"))!;
    card(h.root, String(surge.card)).click();
    const slot = (surge.choose as { slot: number[] }).slot[0]!;
    tile(h.root, slot).dispatchEvent(new MouseEvent("mouseenter"));
    const next = [...h.root.querySelectorAll<HTMLElement>(".nf-tile.nf-cascade-next")].map((t) => Number(t.dataset.slot));
    expect(next).toEqual((surge.cascade as number[][])[0]);
  });

  it("keyboard: a number picks a card, focus goes to a lit tile, arrows move, Escape cancels", async () => {
    const f = fixture("main");
    const h = open("main");
    press("2"); // Chain Reactor
    expect(card(h.root, f.view.you!.hand[1]!.id).classList.contains("selected")).toBe(true);
    const focused = document.activeElement as HTMLElement;
    expect(focused.classList.contains("nf-tile")).toBe(true);
    expect(focused.classList.contains("lit")).toBe(true);
    press("ArrowRight", focused);
    const moved = document.activeElement as HTMLElement;
    expect(Number(moved.dataset.slot)).toBe(Number(focused.dataset.slot) + 1);
    expect(h.root.querySelectorAll(".nf-tile.nf-preview").length).toBeGreaterThan(0);
    moved.click(); // what Enter does on a focused button
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: f.view.you!.hand[1]!.id, slot: Number(moved.dataset.slot) }]);
    h.acts.length = 0;
    h.show(fixture("main"), fixture("main").view);
    press("1");
    expect(lit(h.root)).toHaveLength(36);
    press("Escape");
    expect(lit(h.root)).toHaveLength(0);
    expect(h.root.querySelector(".nf-card.selected")).toBeNull();
  });

  it("a Node Shift is chosen with an arrow at the grid's edge", async () => {
    const f = fixture("obstacles");
    const h = open("obstacles");
    const shift = f.legal.find((e) => String(e.card).startsWith("node_shift"))!;
    card(h.root, String(shift.card)).click();
    expect(lit(h.root)).toEqual([]);
    const edges = [...h.root.querySelectorAll<HTMLButtonElement>(".nf-edge.lit")];
    const expected = expandOptions(f.legal.filter((e) => e.card === shift.card) as Record<string, unknown>[]).length;
    expect(edges).toHaveLength(expected);
    const right = h.root.querySelector<HTMLButtonElement>(".nf-edge.lit[data-side=right]")!;
    expect(right.textContent).toBe("▶");
    right.click();
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: shift.card, line: "row", step: 1, index: Number(right.dataset.index) }]);
  });

  it("a Node Swap takes two tiles; Escape drops the first", async () => {
    const f = fixture("node_swap");
    const h = open("node_swap");
    const entries = f.legal.filter((e) => String(e.card).startsWith("node_swap"));
    const id = String(entries[0]!.card);
    card(h.root, id).click();
    expect(lit(h.root)).toEqual(entries.filter((e) => e.card === id).map((e) => e.slot as number));
    const first = entries[0]!;
    tile(h.root, first.slot as number).click();
    expect(h.acts).toEqual([]);
    expect(tile(h.root, first.slot as number).classList.contains("nf-picked")).toBe(true);
    expect(lit(h.root)).toEqual((first.choose as { other: number[] }).other);
    press("Escape");
    expect(lit(h.root)).toEqual(entries.filter((e) => e.card === id).map((e) => e.slot as number));
    tile(h.root, first.slot as number).click();
    const other = (first.choose as { other: number[] }).other[0]!;
    tile(h.root, other).click();
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: id, slot: first.slot, other }]);
  });

  it("a System Drain names its opponent with a button", async () => {
    const f = fixture("system_drain");
    const h = open("system_drain");
    const drain = f.legal.find((e) => String(e.card).startsWith("system_drain"))!;
    card(h.root, String(drain.card)).click();
    const choice = h.root.querySelector<HTMLButtonElement>(".nf-choice")!;
    expect(choice.textContent).toBe("Bob");
    choice.click();
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: drain.card, target: 1 }]);
  });

  it("a Power Surge plays by a confirm button", async () => {
    const h = open("teams");
    const f = fixture("teams");
    const power = f.legal.find((e) => String(e.card).startsWith("power_surge"))!;
    card(h.root, String(power.card)).click();
    expect(document.activeElement?.classList.contains("nf-confirm")).toBe(true);
    (document.activeElement as HTMLElement).click();
    await settle();
    expect(h.acts).toEqual([{ type: "play_card", card: power.card }]);
  });

  it("Manual Flip, Lock, buying and ending the turn", async () => {
    const f = fixture("main");
    const h = open("main");
    h.root.querySelector<HTMLButtonElement>("[data-testid=nf-lock]")!.click();
    const lock = f.legal.find((e) => e.type === "lock")!;
    expect(lit(h.root)).toEqual((lock.choose as { slot: number[] }).slot);
    h.root.querySelector<HTMLButtonElement>("[data-testid=nf-manual-flip]")!.click();
    expect(lit(h.root)).toHaveLength(36);
    tile(h.root, 9).click();
    await settle();
    card(h.root, f.view.market[0]!.id, ".nf-market").click();
    await settle();
    h.root.querySelector<HTMLButtonElement>("[data-testid=nf-end-turn]")!.click();
    await settle();
    expect(h.acts).toEqual([{ type: "manual_flip", slot: 9 }, { type: "buy_card", card: f.view.market[0]!.id }, { type: "end_turn" }]);
  });

  it("offers a cascade one flip at a time, with Stop", async () => {
    const f = fixture("cascade");
    const h = open("cascade");
    expect(lit(h.root)).toEqual(f.view.pending_cascade!.choices);
    expect(h.root.querySelector(".nf-status")!.textContent).toContain("Cascade");
    for (const slot of f.view.pending_cascade!.from) expect(tile(h.root, slot).classList.contains("nf-cascade-from")).toBe(true);
    // No card can be picked meanwhile: the legal list holds only the cascade.
    expect(h.root.querySelectorAll(".nf-hand .nf-card.playable")).toHaveLength(0);
    h.root.querySelector<HTMLButtonElement>("[data-testid=nf-stop-cascade]")!.click();
    await settle();
    tile(h.root, f.view.pending_cascade!.choices[0]!).click();
    await settle();
    expect(h.acts).toEqual([{ type: "stop_cascade" }, { type: "cascade", slot: f.view.pending_cascade!.choices[0] }]);
    // Escape does not drop a pending cascade.
    press("Escape");
    expect(lit(h.root)).toEqual(f.view.pending_cascade!.choices);
  });

  it("discards by clicking a card in the discard phase", async () => {
    const f = fixture("discard");
    const h = open("discard");
    expect(h.root.querySelector(".nf-status")!.textContent).toBe("Discard down to 6 cards.");
    const first = f.view.you!.hand[0]!;
    card(h.root, first.id).click();
    await settle();
    expect(h.acts).toEqual([{ type: "discard", card: first.id }]);
  });

  it("on a touch screen the hints and buttons speak of taps, never of keys", () => {
    // A touch screen: the browser reports no hover (what touchScreen() asks).
    vi.stubGlobal("matchMedia", (query: string) => ({ matches: query === "(hover: none)", media: query, addEventListener() {}, removeEventListener() {} }));
    try {
      const keys = /1–9|Enter|Esc|hover|focus/;
      const h = open("main");
      const hint = () => h.root.querySelector(".nf-hint")!.textContent ?? "";
      expect(hint()).toContain("Tap");
      expect(hint()).not.toMatch(keys);
      const power = fixture("main").legal.find((e) => e.type === "play_card")!;
      card(h.root, String(power.card)).click();
      expect(hint()).toContain("Tap");
      expect(hint()).not.toMatch(keys);
      expect(h.root.querySelector(".nf-cancel")!.textContent).toBe("Cancel");
      h.destroy();
      const d = open("discard");
      expect(d.root.querySelector(".nf-hint")!.textContent).toBe("Too many cards: tap one to discard.");
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("a rejected command plays the fail sound and keeps nothing selected wrongly", async () => {
    const h = open("main", { reject: true });
    h.root.querySelector<HTMLButtonElement>("[data-testid=nf-end-turn]")!.click();
    await settle();
    expect(h.sounds).toContain("fail");
  });
});

describe("changes", () => {
  it("flips changed tiles from previous to view, with sounds, and alerts on my turn", () => {
    const h = mount();
    harness = h;
    const before = fixture("main");
    before.view.turn = 1;
    h.show(before);
    const after = fixture("main");
    after.view.board[0] = after.view.board[0] === "cyan" ? "pink" : "cyan";
    h.show(after, before.view);
    expect(tile(h.root, 1).classList.contains("nf-flip")).toBe(true);
    expect(tile(h.root, 2).classList.contains("nf-flip")).toBe(false);
    expect(h.sounds).toEqual(expect.arrayContaining(["flip", "alert"]));
  });

  it("plays PROTO-ZERO's turn out in sequence: its card, then its pattern's flips", () => {
    vi.useFakeTimers();
    const h = mount({ stepMs: 300 });
    harness = h;
    const before = fixture("solo_before_ai");
    const after = fixture("solo_after_ai");
    h.show(before);
    expect(h.root.querySelector("[data-testid=nf-proto]")!.hasAttribute("hidden")).toBe(false);
    h.show(after, before.view);
    const card = after.view.proto_zero!.played.at(-1)!;
    const banner = h.root.querySelector("[data-testid=nf-ai]")!;
    expect(banner.textContent).toContain("plays");
    // Frame 1: the card named, its pattern outlined, nothing flipped yet, nothing to do.
    expect(colours(h)).toEqual(before.view.board);
    const outlined = [...h.root.querySelectorAll<HTMLElement>(".nf-tile.nf-ai-pattern")].map((t) => Number(t.dataset.slot));
    expect(outlined).toEqual(aiCardSlots(card));
    expect(h.root.querySelectorAll(".nf-card.playable")).toHaveLength(0);
    expect(h.root.querySelector(".nf-grid-frame")!.classList.contains("glow-pink")).toBe(true);
    expect(h.sounds).not.toContain("alert");
    // The shell holds back its "Your turn" until the board has caught up.
    expect(h.board.busy?.()).toBe(true);
    expect(h.settled.count).toBe(0);
    vi.advanceTimersByTime(300);
    expect(h.board.busy?.()).toBe(false);
    expect(h.settled.count).toBe(1);
    // Frame 2: the pattern's tiles flipped, and it is our turn again.
    expect(colours(h)).toEqual(after.view.board);
    expect(h.root.querySelectorAll(".nf-tile.nf-flip.nf-by-ai").length).toBeGreaterThan(0);
    expect(h.root.querySelectorAll(".nf-card.playable").length).toBeGreaterThan(0);
    expect(banner.textContent).toContain("played");
    expect(h.sounds).toContain("flip");
    expect(h.sounds.at(-1)).toBe("alert"); // our turn again, once it is playable
    expect(h.root.querySelector(".nf-grid-frame")!.classList.contains("glow-cyan")).toBe(true);
  });

  it("an overcharge after the card is a third frame", () => {
    vi.useFakeTimers();
    const h = mount({ stepMs: 300 });
    harness = h;
    const before = fixture("solo_before_ai");
    const after = fixture("solo_after_ai");
    const pattern = new Set(aiCardSlots(after.view.proto_zero!.played.at(-1)!));
    const outside = after.view.board.findIndex((colour, i) => colour === "cyan" && !pattern.has(i + 1));
    after.view.board[outside] = "pink";
    h.show(before);
    h.show(after, before.view);
    vi.advanceTimersByTime(300);
    expect(colours(h)[outside]).toBe("cyan");
    expect(h.root.querySelectorAll(".nf-card.playable")).toHaveLength(0);
    vi.advanceTimersByTime(300);
    expect(colours(h)).toEqual(after.view.board);
    expect(tile(h.root, outside + 1).classList.contains("nf-flip")).toBe(true);
    expect(h.root.querySelectorAll(".nf-card.playable").length).toBeGreaterThan(0);
  });

  it("collapses a pile of quick changes to the last few frames", () => {
    vi.useFakeTimers();
    const h = mount({ stepMs: 300 });
    harness = h;
    const base = fixture("main");
    h.show(base);
    let previous = base.view;
    for (let i = 0; i < 10; i++) {
      const next = fixture("main");
      next.view.board = [...previous.board];
      next.view.board[i] = next.view.board[i] === "cyan" ? "pink" : "cyan";
      h.show(next, previous);
      previous = next.view;
    }
    vi.advanceTimersByTime(300 * 5);
    expect([...h.root.querySelectorAll(".nf-tile")].map((t) => (t as HTMLElement).dataset.colour)).toEqual(previous.board);
  });
});

describe("the end", () => {
  it("shows the final tally with every seat's breakdown", () => {
    const f = fixture("over");
    const h = open("over");
    const tally = h.root.querySelector("[data-testid=nf-tally]")!;
    expect(tally.hasAttribute("hidden")).toBe(false);
    const rows = tally.querySelectorAll("tbody tr");
    expect(rows).toHaveLength(2);
    const totals = [...rows].map((r) => Number(r.querySelector(".nf-total")!.textContent));
    expect(totals).toEqual([...f.view.outcome!.scores].sort((a, b) => b - a));
    expect(tally.querySelector("h3")!.textContent).toBe(f.view.outcome!.ranks[0] === 1 ? "You win!" : "You finish 2nd");
    expect(h.root.querySelector(".nf-status")!.textContent).toBe("Game over.");
  });

  it("team totals at the end; win or lose sounds", () => {
    const h = mount({ seat: 2 });
    harness = h;
    const f = fixture("teams_over");
    const before = structuredClone(f.view);
    delete before.outcome;
    before.phase = "main";
    h.show({ view: before, legal: [] });
    h.show(f, before);
    expect(h.root.querySelector(".nf-team-scores")!.textContent).toContain(String(f.view.outcome!.details.team_scores![0]));
    expect(h.sounds).toContain(f.view.outcome!.ranks[2] === 1 ? "win" : "lose");
  });

  it("solo: won or lost against PROTO-ZERO", () => {
    const f = fixture("solo_over");
    const h = open("solo_over");
    expect(h.root.querySelector("[data-testid=nf-tally] h3")!.textContent).toBe(f.view.outcome!.details.winner === "human" ? "You beat PROTO-ZERO!" : "PROTO-ZERO wins");
    expect(h.root.querySelector("[data-testid=nf-final-vp]")!.textContent).toContain(`Your VP: ${f.view.outcome!.scores[0]}`);
  });
});
