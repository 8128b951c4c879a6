/** Two dice drawn with pips, and their roll animation (random faces until the result). */

import { h } from "../../app/dom";

/** Lit pips of a 3 × 3 grid for each face. */
const PIPS: Record<number, number[]> = {
  1: [4],
  2: [2, 6],
  3: [2, 4, 6],
  4: [0, 2, 6, 8],
  5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8],
};

export function setFace(die: HTMLElement, value: number): void {
  const lit = PIPS[value] ?? [];
  [...die.children].forEach((pip, n) => pip.classList.toggle("on", lit.includes(n)));
  die.dataset.value = String(value);
  die.setAttribute("aria-label", `a die showing ${value}`);
}

export function dieElement(value = 1): HTMLElement {
  const die = h("span.nh-die", { role: "img" });
  for (let n = 0; n < 9; n++) die.append(h("span.nh-pip"));
  setFace(die, value);
  return die;
}

/** Spin two dice through random faces until stopped; returns the stop function. */
export function spin(dice: HTMLElement[], every = 80): () => void {
  const timer = setInterval(() => {
    for (const die of dice) setFace(die, 1 + Math.floor(Math.random() * 6));
  }, every);
  return () => clearInterval(timer);
}
