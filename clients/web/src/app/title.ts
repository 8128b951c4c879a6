/**
 * Turn alerts in the tab title: while an alert is raised and the tab is hidden, the title
 * alternates between the alert ("▶ Your turn") and the page title, so a player in another tab
 * sees it. Showing the tab again restores the plain title; the alert stays set until cleared.
 */

let base = "Lumin";
let alert: string | null = null;
let blink: ReturnType<typeof setInterval> | null = null;
let shown = false;

function render(): void {
  if (alert !== null && document.hidden) {
    if (!blink) {
      blink = setInterval(() => {
        shown = !shown;
        document.title = shown ? `${alert} · ${base}` : base;
      }, 1000);
    }
    shown = true;
    document.title = `${alert} · ${base}`;
    return;
  }
  if (blink) clearInterval(blink);
  blink = null;
  document.title = alert !== null ? `${alert} · ${base}` : base;
}

document.addEventListener("visibilitychange", render);

/** The page's own title (without "Lumin"), e.g. the room's game. */
export function setTitle(title: string | null): void {
  base = title ? `${title} · Lumin` : "Lumin";
  render();
}

/** Raise (a string) or clear (null) the turn alert. */
export function setAlert(text: string | null): void {
  if (alert === text) return;
  alert = text;
  render();
}
