/**
 * Legal commands (docs/protocol.md, "Legal commands"): expanding compact entries into the
 * concrete commands they allow.
 *
 * An entry is `type` + the command's fixed fields, optionally `choose: {field: [values]}` (one
 * command per value), plus information keys for the client (`preview`, `odds`, `cost`...) that
 * are not part of the command. The protocol does not mark which keys are information, and the
 * server refuses a command with a field it does not know; the keys documented as information
 * in docs/rules/*.md are listed in {@link INFO_KEYS} and left out of every command.
 */

import type { Data } from "./messages";

/** A command to send in `act`: its `type` and fields. */
export type Command = { type: string } & Record<string, unknown>;

/** Keys of legal entries that inform the client and are not command fields (docs/rules). */
export const INFO_KEYS: ReadonlySet<string> = new Set([
  "choose",
  "preview", // Flip Over Frog, Neon Flip: what a choice would flip or change
  "odds", // Neon Hex: a Risk expansion's odds
  "cost", // Neon Hex, Neon Flip: the energy a command costs
  "refund", // Neon Hex: a failed Risk's refund
  "bonus_hexes", // Neon Hex: the hexes a Risk bonus may claim
  "cascade", // Neon Flip: whether a play may cascade
]);

/** One concrete command with the entry it came from and its place in `choose` (or null). */
export interface Option {
  command: Command;
  entry: Data;
  /** The index of the chosen value in the entry's `choose` list; null without `choose`. */
  choice: number | null;
  /** The chosen field, when the entry has `choose`. */
  field: string | null;
}

/** The command fields of an entry: everything but the information keys. */
export function fixedFields(entry: Data): Command {
  const command: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (!INFO_KEYS.has(key)) command[key] = value;
  }
  return command as Command;
}

/** Every concrete command a legal list allows, in order, each with its entry. */
export function expandOptions(entries: readonly Data[]): Option[] {
  const out: Option[] = [];
  for (const entry of entries) {
    const fixed = fixedFields(entry);
    const choose = entry.choose as Record<string, unknown[]> | undefined | null;
    const fields = choose ? Object.keys(choose) : [];
    if (fields.length === 0) {
      out.push({ command: fixed, entry, choice: null, field: null });
      continue;
    }
    const field = fields[0]!;
    choose![field]!.forEach((value, choice) => {
      out.push({ command: { ...fixed, [field]: value }, entry, choice, field });
    });
  }
  return out;
}

/** Every concrete command a legal list allows (the TypeScript `expand_legal`). */
export function expandLegal(entries: readonly Data[]): Command[] {
  return expandOptions(entries).map((option) => option.command);
}

/** Whether two commands are the same (same fields, deeply equal values). */
export function sameCommand(a: Data, b: Data): boolean {
  return canonical(a) === canonical(b);
}

/** A stable text form of a value (map keys sorted), to compare or index commands. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item && typeof item === "object" && !Array.isArray(item)) {
      return Object.fromEntries(Object.entries(item as Data).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    return item;
  });
}

/** A short human label for a command: `play tile=R3 space=5`. */
export function describeCommand(command: Data): string {
  const parts = Object.entries(command)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return [String(command.type), ...parts].join(" ");
}
