// @vitest-environment jsdom
/** The Neon Hex board in jsdom, on views the real engine made (fixtures.py). */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { expandLegal } from "../../protocol/legal";
import { readOffers } from "./legal";
import { click, fixture, frames, hexEl, marked, mount, press, settle, type Harness } from "./testkit";
import { DICE_SHOWN_MS } from "./index";

let harness: Harness | null = null;

function use(h: Harness): Harness {
  harness = h;
  return h;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  harness?.destroy();
  harness = null;
  vi.useRealTimers();
});

const text = (root: HTMLElement, selector: string) => root.querySelector(selector)?.textContent ?? "";

describe("drawing", () => {
  it("draws 37 hexes on a starfield, each faction's hex with its symbol", () => {
    const { root, show } = use(mount());
    const start = fixture("start");
    show(start);
    expect(root.querySelectorAll(".nh-hex")).toHaveLength(37);
    expect(root.querySelectorAll(".nh-star").length).toBeGreaterThan(20);
    for (const f of start.view.factions) {
      const hex = hexEl(root, f.home);
      expect(hex.dataset.owner).toBe(String(f.seat));
      expect(hex.querySelector("text")!.textContent).toBe(f.seat === 0 ? "◆" : "●");
      expect(hex.querySelector(".nh-hex-pattern")!.getAttribute("fill")).toMatch(/^url\(#nh\d+-(stripes|dots)\)$/);
      expect(hex.getAttribute("aria-label")).toContain("home of");
    }
    expect(marked(root, "nh-neutral")).toHaveLength(35);
  });

  it("lists every faction's Energy, territory and income", () => {
    const { root, show } = use(mount());
    const start = fixture("start");
    show(start);
    const items = root.querySelectorAll(".nh-faction");
    expect(items).toHaveLength(2);
    expect(text(root, "[data-testid=nh-energy-0]")).toBe("⚡ 4");
    expect(text(root, "[data-testid=nh-energy-1]")).toBe("⚡ 3");
    expect(text(root, "[data-testid=nh-hexes-0]")).toBe("⬢ 1/12");
    expect(items[0]!.textContent).toContain("+1/turn");
    expect(items[0]!.textContent).toContain("Ada");
    expect(items[0]!.textContent).toContain("(you)");
    expect(items[0]!.classList.contains("current")).toBe(true);
    expect(items[0]!.textContent).toContain("Builder");
  });

  it("tells two factions of the same colour apart by symbol and pattern", () => {
    const { root, show } = use(mount({ seat: 2 }));
    const five = fixture("five");
    show(five);
    const [a, b] = five.view.factions;
    expect(a!.colour).toBe("red");
    expect(b!.colour).toBe("red");
    const first = hexEl(root, a!.home);
    const second = hexEl(root, b!.home);
    expect(first.querySelector("text")!.textContent).not.toBe(second.querySelector("text")!.textContent);
    expect(first.querySelector(".nh-hex-pattern")!.getAttribute("fill")).not.toBe(second.querySelector(".nh-hex-pattern")!.getAttribute("fill"));
    expect(root.querySelectorAll(".nh-faction")).toHaveLength(5);
    // Not seat 2's turn: nothing is lit.
    expect(marked(root, "nh-target")).toEqual([]);
  });
});

describe("playing", () => {
  it("lights exactly the targets legal offers, and sends exactly its commands", async () => {
    const { root, show, acts } = use(mount());
    const start = fixture("start");
    show(start);
    const offers = readOffers(start.legal);
    expect(marked(root, "nh-target").sort((a, b) => a - b)).toEqual([...offers.targets.keys()].sort((a, b) => a - b));
    expect(root.classList.contains("my-turn")).toBe(true);
    // A hex that is not offered does nothing.
    click(hexEl(root, 18));
    expect(root.querySelector("[data-testid=nh-safe]")).toBeNull();
    const target = [...offers.targets.keys()][0]!;
    click(hexEl(root, target));
    expect(marked(root, "nh-selected")).toEqual([target]);
    expect(text(root, "[data-testid=nh-safe]")).toContain("1 ⚡");
    expect(text(root, "[data-testid=nh-risk]")).toContain("10/36 (28%)");
    expect(text(root, "[data-testid=nh-risk]")).toContain("1 ⚡ back");
    click(root.querySelector("[data-testid=nh-safe]")!);
    await settle();
    expect(acts).toEqual([{ type: "expand", target, kind: "safe" }]);
    const all = expandLegal(start.legal as Record<string, unknown>[]);
    expect(all).toContainEqual(acts[0]);
  });

  it("offers the bonus pairs when the Risk bonus is a choice", async () => {
    const { root, show, acts } = use(mount());
    const start = fixture("start");
    show(start);
    const offer = [...readOffers(start.legal).targets.values()].find((t) => t.risk?.choose)!;
    click(hexEl(root, offer.target));
    // The Risk's candidate bonus hexes are outlined.
    expect(marked(root, "nh-bonus").sort()).toEqual([...offer.risk!.bonusHexes].sort());
    click(root.querySelector("[data-testid=nh-risk]")!);
    expect(acts).toEqual([]);
    const pairs = root.querySelectorAll(".nh-pair");
    expect(pairs).toHaveLength(offer.risk!.options.length);
    expect(pairs[0]!.textContent).toMatch(/(east|west)/);
    press("2");
    await settle();
    expect(acts).toEqual([offer.risk!.options[1]!.command]);
    expect(acts[0]).toHaveProperty("bonus");
  });

  it("sends a forced-bonus Risk without naming the bonus, by keyboard", async () => {
    const { root, show, acts } = use(mount());
    const start = fixture("risk_success");
    show(start);
    const offer = [...readOffers(start.legal).targets.values()].find((t) => t.risk && !t.risk.choose)!;
    expect(offer).toBeDefined();
    const hex = hexEl(root, offer.target);
    hex.focus();
    press("Enter", hex);
    expect(marked(root, "nh-selected")).toEqual([offer.target]);
    press("r");
    await settle();
    expect(acts).toEqual([{ type: "expand", target: offer.target, kind: "risk" }]);
  });

  it("moves between hexes with the arrow keys and plays Safe with S, ends the turn with E", async () => {
    const { root, show, acts } = use(mount());
    const start = fixture("start");
    show(start);
    const home = start.view.factions[0]!.home;
    const hex = hexEl(root, home);
    hex.focus();
    const offers = readOffers(start.legal);
    // Walk from home with arrows until on a lit hex.
    let at = home;
    for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) {
      press(key, hexEl(root, at));
      const focused = document.activeElement?.getAttribute("data-hex");
      if (focused !== null && focused !== undefined && offers.targets.has(Number(focused))) {
        at = Number(focused);
        break;
      }
      if (focused) at = Number(focused);
      if (at !== home) press(key === "ArrowLeft" ? "ArrowRight" : key === "ArrowRight" ? "ArrowLeft" : key === "ArrowUp" ? "ArrowDown" : "ArrowUp", hexEl(root, at));
      at = Number(document.activeElement?.getAttribute("data-hex") ?? home);
    }
    expect(offers.targets.has(at)).toBe(true);
    expect(document.activeElement).toBe(hexEl(root, at));
    press(" ", hexEl(root, at));
    press("s");
    await settle();
    expect(acts).toEqual([{ type: "expand", target: at, kind: "safe" }]);
    press("e");
    await settle();
    expect(acts[1]).toEqual({ type: "end_turn" });
  });

  it("offers no Risk with 1 Energy, only the end of the turn with none", () => {
    const { root, show } = use(mount());
    const low = fixture("low_energy");
    show(low);
    click(hexEl(root, [...readOffers(low.legal).targets.keys()][0]!));
    expect(root.querySelector("[data-testid=nh-safe]")).not.toBeNull();
    expect(root.querySelector("[data-testid=nh-risk]")).toBeNull();
    show(fixture("no_energy"));
    expect(marked(root, "nh-target")).toEqual([]);
    expect(root.querySelector("[data-testid=nh-end-turn]")).not.toBeNull();
    expect(text(root, "[data-testid=nh-actions]")).toContain("end your turn");
  });

  it("sends nothing for a spectator or out of turn", async () => {
    const watcher = use(mount({ seat: null }));
    watcher.show(fixture("start_spectator"));
    expect(marked(watcher.root, "nh-target")).toEqual([]);
    click(hexEl(watcher.root, 18));
    press("e");
    await settle();
    expect(watcher.acts).toEqual([]);
    expect(text(watcher.root, "[data-testid=nh-actions]")).toContain("Watching");
    expect(text(watcher.root, "[data-testid=nh-banner]")).toContain("Ada to play");
    watcher.destroy();
    const other = use(mount({ seat: 1 }));
    other.show(fixture("start_other"));
    expect(marked(other.root, "nh-target")).toEqual([]);
    expect(text(other.root, "[data-testid=nh-actions]")).toContain("Waiting for Ada");
  });

  it("ignores keys typed in a text field (the chat)", async () => {
    const { root, show, acts } = use(mount());
    show(fixture("start"));
    const input = document.createElement("input");
    document.body.append(input);
    press("e", input);
    await settle();
    expect(acts).toEqual([]);
    input.remove();
    expect(root.querySelector("[data-testid=nh-end-turn]")).not.toBeNull();
  });
});

describe("animation", () => {
  it("spins the dice before a breakthrough lands, then claims three hexes", () => {
    const { root, show, sounds } = use(mount());
    const start = fixture("start");
    const after = fixture("risk_success");
    show(start);
    show(after, start);
    const roll = after.view.last_roll!;
    const dice = root.querySelector<HTMLElement>("[data-testid=nh-dice]")!;
    expect(dice.hidden).toBe(false);
    expect(dice.dataset.state).toBe("rolling");
    expect(marked(root, "nh-rolling")).toEqual([roll.target]);
    expect(hexEl(root, roll.target).dataset.owner).toBeUndefined(); // not yet
    expect(marked(root, "nh-target")).toEqual([]); // no commands while it plays
    expect(sounds).toContain("dice");
    vi.advanceTimersByTime(1000);
    expect(dice.dataset.state).toBe("success");
    expect([...dice.querySelectorAll<HTMLElement>(".nh-die")].map((d) => Number(d.dataset.value))).toEqual(roll.dice);
    expect(text(root, "[data-testid=nh-dice-total]")).toContain(`= ${roll.total}`);
    // The result stays a moment, then the dice give the hexes under them back.
    vi.advanceTimersByTime(DICE_SHOWN_MS - 100);
    expect(dice.hidden).toBe(false);
    vi.advanceTimersByTime(200);
    expect(dice.hidden).toBe(true);
    expect(marked(root, "nh-fresh")).toHaveLength(3);
    expect(hexEl(root, roll.target).dataset.owner).toBe("0");
    expect(sounds).toEqual(expect.arrayContaining(["success", "claim"]));
    expect(text(root, "[data-testid=nh-log]")).toContain("breakthrough");
    // It is still seat 0's turn: the controls are back.
    expect(marked(root, "nh-target").length).toBeGreaterThan(0);
  });

  it("shows a failed roll", () => {
    const { root, show, sounds } = use(mount());
    const start = fixture("start");
    show(start);
    show(fixture("risk_fail"), start);
    vi.advanceTimersByTime(1000);
    expect(root.querySelector<HTMLElement>("[data-testid=nh-dice]")!.dataset.state).toBe("fail");
    expect(sounds).toContain("fail");
    expect(text(root, "[data-testid=nh-log]")).toContain("failed");
    expect(text(root, "[data-testid=nh-energy-0]")).toBe("⚡ 2");
  });

  it("plays a bot's quick turn move by move, then alerts: your turn", () => {
    const { root, board, show, sounds, settled } = use(mount());
    const turn = frames("bot_turn");
    show(turn[0]!);
    expect(root.classList.contains("my-turn")).toBe(false);
    expect(sounds).toEqual([]);
    expect(board.busy?.()).toBe(false);
    const hexesOf = () => Number(text(root, "[data-testid=nh-hexes-1]").match(/⬢ (\d+)/)![1]);
    const startHexes = hexesOf();
    // Every change arrives at once.
    for (let n = 1; n < turn.length; n++) show(turn[n]!, turn[n - 1]!);
    // Only the first shows at once; the rest follow one by one, and the shell hears when the
    // board has caught up (its "Your turn" waits for that).
    expect(hexesOf()).toBe(startHexes + 1);
    expect(board.busy?.()).toBe(true);
    const caughtUp = settled.count;
    const seen = [hexesOf()];
    for (let n = 0; n < 20 && seen.length < turn.length; n++) {
      vi.advanceTimersByTime(150);
      if (hexesOf() !== seen[seen.length - 1]) seen.push(hexesOf());
    }
    const final = turn[turn.length - 1]!.view.factions[1]!.hexes;
    expect(seen).toEqual(Array.from({ length: final - startHexes }, (_, n) => startHexes + n + 1));
    vi.advanceTimersByTime(2000);
    expect(board.busy?.()).toBe(false);
    expect(settled.count).toBeGreaterThan(caughtUp);
    // One alert, once the last move has been shown.
    expect(sounds.filter((s) => s === "alert")).toHaveLength(1);
    expect(sounds.lastIndexOf("alert")).toBeGreaterThan(sounds.lastIndexOf("claim"));
    expect(root.classList.contains("my-turn")).toBe(true);
    expect(text(root, "[data-testid=nh-banner]")).toContain("Your turn");
    expect(root.querySelectorAll(".nh-log li").length).toBeGreaterThanOrEqual(turn.length - 1);
  });

  it("jumps to a fresh snapshot (no previous view) at once", () => {
    const { root, show } = use(mount());
    const turn = frames("bot_turn");
    show(turn[0]!);
    show(turn[1]!, turn[0]!);
    show(turn[2]!, turn[1]!);
    show(turn[turn.length - 1]!);
    expect(text(root, "[data-testid=nh-hexes-1]")).toBe(`⬢ ${turn[turn.length - 1]!.view.factions[1]!.hexes}/12`);
    expect(marked(root, "nh-target").length).toBeGreaterThan(0);
  });
});

describe("the end", () => {
  it("shows the winner and the standings", () => {
    const { root, show } = use(mount());
    show(fixture("over"));
    const result = root.querySelector<HTMLElement>("[data-testid=nh-result]")!;
    expect(result.hidden).toBe(false);
    expect(text(root, "[data-testid=nh-result-title]")).toBe("You win!");
    expect(result.textContent).toContain("reached 12 hexes");
    expect([...result.querySelectorAll(".nh-standings li")].map((li) => li.getAttribute("data-seat"))).toEqual(["0", "1", "2"]);
    expect(root.querySelector<HTMLElement>("[data-testid=nh-actions]")!.hidden).toBe(true);
    expect(root.classList.contains("my-turn")).toBe(false);
  });

  it("names the winner to a spectator and another seat", () => {
    const watcher = use(mount({ seat: null }));
    watcher.show(fixture("over_spectator"));
    expect(text(watcher.root, "[data-testid=nh-result-title]")).toBe("Ada wins");
    watcher.destroy();
    const bob = use(mount({ seat: 1 }));
    bob.show(fixture("over"));
    expect(text(bob.root, "[data-testid=nh-result-title]")).toBe("You finish 2nd");
  });

  it("shares a stalled game's victory", () => {
    const { root, show } = use(mount({ seat: 1 }));
    show(fixture("over_draw"));
    expect(text(root, "[data-testid=nh-result-title]")).toBe("You share the victory!");
    expect(text(root, "[data-testid=nh-result]")).toContain("without a claim");
  });

  it("cleans up: no keys after destroy", async () => {
    const h = mount();
    h.show(fixture("start"));
    h.destroy();
    press("e");
    await settle();
    expect(h.acts).toEqual([]);
    expect(h.root.querySelector(".nh-board")).toBeNull();
  });
});
