/**
 * The board registry: game id → a lazily loaded {@link BoardFactory} (each board is its own
 * chunk, loaded when a room of that game opens). Games without a registered board use the
 * generic board (src/boards/generic.ts), which shows the view and one button per legal
 * command, so every game is playable from the first slice on.
 *
 * Flash 8's board (src/boards/flash8/index.ts) is picked up when that file exists.
 */

import type { BoardFactory } from "./types";

type Loader = () => Promise<{ default: BoardFactory }>;

const flash8 = import.meta.glob<{ default: BoardFactory }>("./flash8/index.ts");

const LOADERS: Record<string, Loader> = {
  flip_over_frog: () => import("./flip_over_frog/index"),
  ...(flash8["./flash8/index.ts"] ? { flash8: flash8["./flash8/index.ts"] } : {}),
};

/** Whether a game has its own board (else the generic one is used). */
export function hasBoard(game: string): boolean {
  return game in LOADERS;
}

/** The board factory for a game: its own, or the generic board. */
export async function loadBoard(game: string): Promise<BoardFactory> {
  const loader = LOADERS[game];
  if (loader) {
    try {
      return (await loader()).default;
    } catch (error) {
      console.error(`lumin: the ${game} board failed to load; using the generic board`, error);
    }
  }
  return (await import("./generic")).default;
}
