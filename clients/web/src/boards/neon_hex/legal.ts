/**
 * What the `legal` list offers, grouped by target hex (docs/rules/neon-hex.md, "Legal
 * commands"). The only source of what the board may send: every command here is one of
 * `expandOptions(legal)`, unchanged. Information keys (`cost`, `odds`, `refund`,
 * `bonus_hexes`) are read for display only.
 */

import { expandOptions, type Option } from "../../protocol/legal";
import type { LegalEntry } from "../types";

export interface SafeOffer {
  option: Option;
  cost: number;
}

export interface RiskOffer {
  /** One option when the bonus is forced; one per bonus pair when it is a choice. */
  options: Option[];
  cost: number;
  refund: number;
  odds: [number, number];
  /** The neutral neighbours of the target, in direction order. */
  bonusHexes: number[];
  /** Whether the bonus pair is the player's choice (the entry had `choose`). */
  choose: boolean;
}

export interface TargetOffer {
  target: number;
  safe: SafeOffer | null;
  risk: RiskOffer | null;
}

export interface Offers {
  targets: Map<number, TargetOffer>;
  endTurn: Option | null;
  /** Every concrete command, for "is there anything to do". */
  count: number;
}

const num = (value: unknown, fallback: number): number => (typeof value === "number" ? value : fallback);

export function readOffers(legal: readonly LegalEntry[]): Offers {
  const targets = new Map<number, TargetOffer>();
  let endTurn: Option | null = null;
  const options = expandOptions(legal as Record<string, unknown>[]);
  for (const option of options) {
    const { command, entry } = option;
    if (command.type === "end_turn") {
      endTurn = option;
      continue;
    }
    if (command.type !== "expand" || typeof command.target !== "number") continue;
    const target = command.target;
    const offer = targets.get(target) ?? { target, safe: null, risk: null };
    targets.set(target, offer);
    if (command.kind === "safe") offer.safe = { option, cost: num(entry.cost, 1) };
    else if (command.kind === "risk") {
      if (!offer.risk) {
        const odds = Array.isArray(entry.odds) && entry.odds.length === 2 ? (entry.odds as [number, number]) : ([10, 36] as [number, number]);
        offer.risk = {
          options: [],
          cost: num(entry.cost, 2),
          refund: num(entry.refund, 1),
          odds,
          bonusHexes: Array.isArray(entry.bonus_hexes) ? (entry.bonus_hexes as number[]) : [],
          choose: option.field === "bonus",
        };
      }
      offer.risk.options.push(option);
    }
  }
  return { targets, endTurn, count: options.length };
}

/** The bonus hexes an option names (empty when the bonus is forced and left unnamed). */
export function bonusOf(option: Option): number[] {
  const bonus = option.command.bonus;
  return Array.isArray(bonus) ? (bonus as number[]) : [];
}

/** "10/36 (28%)". */
export function oddsText(odds: [number, number]): string {
  return `${odds[0]}/${odds[1]} (${Math.round((100 * odds[0]) / odds[1])}%)`;
}
