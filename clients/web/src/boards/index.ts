/**
 * The board registry: game id → a lazily loaded {@link BoardFactory} (each board is its own
 * chunk, loaded when a room of that game opens). A game without a registered board, or whose
 * board fails to load, gets the generic board (src/boards/generic.ts), which shows the view
 * and one button per legal command, so every game stays playable.
 */

import type { BoardFactory } from "./types";

type Loader = () => Promise<{ default: BoardFactory }>;

const LOADERS: Record<string, Loader> = {
  flip_over_frog: () => import("./flip_over_frog/index"),
  flash8: () => import("./flash8/index"),
  neon_hex: () => import("./neon_hex/index"),
  neon_flip: () => import("./neon_flip/index"),
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
