/**
 * Whose keys a key press is. A board's keys (Flip Over Frog's 1, 2 or 3, Neon Hex's S, R and
 * E, Neon Flip's card numbers, Flash 8's arrows and space) work from anywhere on the room page
 * (a button, the page itself, the share link's read-only field) unless the player is typing
 * into a text field (chat, name, code) or working a list (a select), which keep their keys.
 */

/** Input types that take typed text (a read-only or disabled one takes none). */
const TEXT_TYPES = new Set(["text", "search", "email", "password", "url", "tel", "number", "date", "time", "datetime-local", "month", "week"]);

/** True when `target` is where the player types or picks from a list. */
export function typingInto(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || typeof element.closest !== "function") return false;
  if (element.isContentEditable || element.closest("[contenteditable=''], [contenteditable='true']")) return true;
  const tag = element.tagName;
  if (tag === "TEXTAREA") return !(element as HTMLTextAreaElement).readOnly && !(element as HTMLTextAreaElement).disabled;
  if (tag === "SELECT") return true;
  if (tag === "INPUT") {
    const input = element as HTMLInputElement;
    return TEXT_TYPES.has((input.type || "text").toLowerCase()) && !input.readOnly && !input.disabled;
  }
  return false;
}
