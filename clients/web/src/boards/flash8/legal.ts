/**
 * Reading Flash 8's `legal` list. The board allows exactly what these entries allow: nothing
 * here knows a rule, it only looks up the server's entries, expanded by the shell's
 * `expandLegal` (docs/protocol.md, "Legal commands": an entry is `type` + fixed fields,
 * optionally `choose: {field: [values]}` standing for one command per value).
 */

import { expandLegal, sameCommand } from "../../protocol/legal";
import type { Command, LegalEntry } from "../types";

/** A slide the server allows: the electron on `src` into the free cell `dst`. */
export interface SlideMove {
  src: number;
  dst: number;
}

/** A read-only index over one legal list, with the questions the boards ask. */
export class Legal {
  /** The expanded commands. */
  readonly commands: readonly Command[];
  /** Whether the list came with entries at all (it is empty before the start, in a lockout,
   *  at the end, for spectators). */
  readonly any: boolean;
  private readonly plain: Set<string>;

  constructor(entries: readonly LegalEntry[]) {
    this.commands = expandLegal(entries);
    this.any = this.commands.length > 0;
    // Commands that carry only their type (the bare `flash`, `hint`).
    this.plain = new Set(
      this.commands.filter((c) => Object.keys(c).length === 1).map((c) => c.type),
    );
  }

  /** Every allowed slide. */
  slides(): SlideMove[] {
    return this.commands
      .filter((c) => c.type === "slide" && typeof c.src === "number" && typeof c.dst === "number")
      .map((c) => ({ src: c.src as number, dst: c.dst as number }));
  }

  /** The free cells the electron on `src` may slide into now. */
  slideTargets(src: number): number[] {
    return this.slides()
      .filter((s) => s.src === src)
      .map((s) => s.dst);
  }

  /** Whether this exact slide is allowed. */
  canSlide(src: number, dst: number): boolean {
    return this.slides().some((s) => s.src === src && s.dst === dst);
  }

  /** Whether the command with only this type (`flash`, `hint`) is allowed. */
  has(type: string): boolean {
    return this.plain.has(type);
  }

  /** The stacks a named FLASH may claim. */
  flashStacks(): number[] {
    return this.commands
      .filter((c) => c.type === "flash" && typeof c.stack === "number")
      .map((c) => c.stack as number);
  }

  /** The shapes `claim_line` allows for `line` (empty when the line may not be claimed). */
  lineShapes(line: number): string[] {
    return this.commands
      .filter((c) => c.type === "claim_line" && c.line === line && typeof c.shape === "string")
      .map((c) => c.shape as string);
  }

  /** Whether `command` is exactly one of the allowed commands (same type and fields). */
  allows(command: Command): boolean {
    return this.commands.some((c) => sameCommand(c, command));
  }
}
