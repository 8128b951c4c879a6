/**
 * Ratings as players read them (protocol version 5): a shown rating (`mu - 3 sigma`, 0 for a
 * newcomer) with one decimal, a change with its sign, and the small tag beside a seat's name.
 */

import { h } from "./dom";

/** A shown rating with one decimal, negative ones with the minus sign of a change ("12.3",
 *  "−1.8"; never "-0.0"). */
export function ratingText(rating: number): string {
  const rounded = (Math.sign(rating) * Math.round(Math.abs(rating) * 10)) / 10; // halves away from 0
  return rounded < 0 ? `−${Math.abs(rounded).toFixed(1)}` : (rounded === 0 ? 0 : rounded).toFixed(1);
}

/** The change from `before` to `after`, signed: "+2.5", "−0.8", "±0.0". */
export function changeText(before: number, after: number): string {
  const raw = after - before;
  const delta = (Math.sign(raw) * Math.round(Math.abs(raw) * 10)) / 10;
  return delta > 0 ? `+${delta.toFixed(1)}` : delta < 0 ? `−${Math.abs(delta).toFixed(1)}` : "±0.0";
}

/** The tag beside a seat's name: its rating, or nothing when the seat has none (a guest of an
 *  older server, a bot, an open seat). */
export function ratingTag(rating: number | null | undefined): HTMLElement | null {
  if (rating === null || rating === undefined) return null;
  return h("span.rating", { "data-testid": "seat-rating", title: "Rating in this game" }, `★ ${ratingText(rating)}`);
}
