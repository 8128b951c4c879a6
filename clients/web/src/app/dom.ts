/**
 * A tiny DOM builder: `h("button.primary", { onclick }, "Start")`.
 *
 * The tag string takes `tag.class.class#id`; props set attributes (`aria-*`, `data-*`, `for`,
 * anything with a dash or a string value) or properties (`onclick`, `value`, `checked`...);
 * children are nodes, strings (as text, never HTML), numbers, or nested arrays; null,
 * undefined and false are skipped.
 */

export type Child = Node | string | number | null | undefined | false | Child[];
export type Props = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K | `${K}.${string}` | `${K}#${string}`, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement;
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement {
  const [head, id] = tag.split("#") as [string, string | undefined];
  const [name, ...classes] = head.split(".");
  const element = document.createElement(name || "div");
  if (classes.length) element.className = classes.join(" ");
  if (id) element.id = id;
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = [element.className, String(value)].filter(Boolean).join(" ");
    else if (key === "style" && typeof value === "object") Object.assign(element.style, value);
    else if (key.startsWith("on") && typeof value === "function") {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else if (key in element && !key.includes("-") && key !== "list" && key !== "form") {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Append children (see {@link h}). */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** An SVG element with attributes. */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (SVGElement | string)[]): SVGElement {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** Fire-and-forget an async action; failures are reported, never unhandled. */
export function run(action: () => Promise<unknown>, onError: (error: unknown) => void): void {
  action().catch(onError);
}

/** Whether the page is used by touch alone (no hovering pointer): hints then speak of taps,
 *  not keys. */
export function touchScreen(): boolean {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" && window.matchMedia("(hover: none)").matches;
}
