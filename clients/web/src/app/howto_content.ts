/**
 * How to play each game, written from its rulebook (docs/rules/*.rulebook.txt), the
 * decisions that settle what the rulebook leaves open (*.decisions.md) and the rules as Lumin
 * plays them (docs/rules/*.md). Where the three differ, the decisions and docs/rules win, as
 * they do on the server. Plain data: a paragraph is a string, a list is an array of strings.
 */

export interface HowTo {
  id: string;
  name: string;
  tagline: string;
  players: string;
  sections: { title: string; body: (string | string[])[] }[];
}

export const HOW_TO: HowTo[] = [
  {
    id: "flip_over_frog",
    name: "Flip Over Frog",
    tagline: "Flip the board so your secret colour shows the most frogs.",
    players: "2 to 4 players · about 10 minutes",
    sections: [
      {
        title: "Goal",
        body: [
          "Each player is dealt one secret frog colour: red, blue, green or yellow. At the end, whoever has the most face-up frogs of their colour on the board wins; equal leaders share the victory. Nobody knows anyone else's colour until the final reveal, so play your own colour without giving it away.",
          "New to the game? Seat an easy bot for your first game; the plain bot plays harder.",
        ],
      },
      {
        title: "What's on the table",
        body: [
          [
            "A 4 × 4 board. A space is empty or holds a stack; only the top tile of a stack is seen.",
            "32 frog tiles, 8 per colour. Frogs 1–4 of a colour have arrows on their four edges (up, down, left, right); frogs 5–8 on their four corners (the diagonals).",
            "4 snakes.",
            "Every player holds 3 tiles, kept secret. The rest form a face-down stack.",
          ],
        ],
      },
      {
        title: "Your turn",
        body: [
          "Play one tile from your hand, resolve it, then draw back up to 3 tiles while the stack lasts. Turns go round the table in seat order; the first player is drawn at random.",
          [
            "A frog goes on an empty space, or on a space whose top tile is face down. Never on a face-up tile.",
            "Once it lands, each of its four arrows that points at an occupied space flips that whole space: the stack turns over as one piece, so its order reverses and every tile's face toggles. Arrows pointing off the board or at empty spaces do nothing. Only the frog you just placed flips anything: no chain reactions.",
            "A consequence: a face-up frog on a face-down tile makes a stack that always shows a frog, so it never takes a third tile.",
            "A snake goes only on a face-up frog. The frog and the snake are both discarded face up; whatever lay beneath stays.",
            "If your hand holds only snakes and no frog is face up anywhere, you discard a snake face up instead.",
          ],
        ],
      },
      {
        title: "The end",
        body: [
          "The game ends at once when, after a play and all its flips, the board shows 16 face-up frogs, or when the stack is empty and every hand has been played out. Everyone's colour is revealed and each player counts the face-up frogs of their colour.",
        ],
      },
      {
        title: "Playing it here",
        body: [
          [
            "Pick a tile from your hand (click it, or press 1, 2 or 3). The spaces it may go to light up.",
            "Point at (or move the keyboard focus to) a lit space to see what it would flip, outlined in the preview colour. Click it, or press Enter, to play.",
            "Move around the board with the arrow keys; Escape drops the selected tile.",
            "Each colour also has its own symbol (◆ red, ● blue, ▲ green, ★ yellow) and pattern, and each arrow is drawn, so the board reads without colour.",
            "Face-down tiles show a plain back. Everyone may remember what lies underneath, as at the table: the board marks backs whose face you saw.",
          ],
        ],
      },
    ],
  },
  {
    id: "neon_hex",
    name: "Neon Hex Strategy",
    tagline: "Claim territory, manage Energy, and race rival factions to 12 hexes.",
    players: "2 to 5 factions, people or AI · 10–20 minutes",
    sections: [
      {
        title: "Goal",
        body: ["Be the first faction to control 12 hexes. If the board fills first, the largest territory wins; equal leaders draw."],
      },
      {
        title: "Set up",
        body: [
          "The grid has 37 hexes. Each faction starts on a corner hex with 3 Energy. Factions choose a role (Builder, Technologist, Merchant, Diplomat or Explorer) and a colour; roles only name a faction and change no rule. Seat 1 moves first, then the seats in order.",
        ],
      },
      {
        title: "Your turn",
        body: [
          "At the start of each of your turns you gain 1 Energy, plus 1 more for every 4 hexes you control. Energy carries over. Then expand as many times as you can pay for, and end your turn.",
          [
            "Safe expansion: 1 Energy. Claim a neutral hex next to your territory. No dice, no risk.",
            "Risk expansion: 2 Energy. Roll two dice. On 9 or more (10 chances in 36) you claim the target plus up to two neutral hexes beside it, and get 1 Energy back. Below 9, the Energy is spent and nothing is claimed.",
            "A faction with no neutral hex beside its territory has its turn ended for it.",
          ],
        ],
      },
      {
        title: "The end",
        body: [
          "Reaching 12 hexes wins at once, even mid-turn or through a Risk bonus. A full board, or a full round in which nobody claims a hex, ends the game: the largest territory wins.",
          "AI factions (easy, medium, hard) follow exactly the same rules; harder ones rank their options better and pick their risks more wisely.",
        ],
      },
    ],
  },
  {
    id: "flash8",
    name: "Flash 8",
    tagline: "Slide your electrons to match a card, then shout FLASH.",
    players: "2 to 4 racers in real time, or solo against a 4-minute clock",
    sections: [
      {
        title: "The race: goal",
        body: [
          "Score the most points by reproducing, on your own tablet, the patterns shown on top of the card stacks. Everyone plays at once: there are no turns.",
        ],
      },
      {
        title: "Your tablet",
        body: [
          "A 3 × 3 tablet holds 8 electrons (3 blue, 2 yellow, 1 red, 1 violet, 1 green) and one free space. You move an electron by sliding it into an adjacent free space, one at a time. A player with a handicap has one blue fewer, and so two free spaces.",
          "There is one stack of 10 cards per player. You must reproduce a card as seen from your own seat: what the card shows at its bottom, the player facing you reproduces at their top. The server shows every card already turned to your seat.",
        ],
      },
      {
        title: "FLASH",
        body: [
          [
            "When your tablet matches the top card of a stack, call FLASH. The card is yours and the next card of its stack is revealed; play never stops.",
            "A card is worth 1 point; cards marked with two stars are worth 2.",
            "A wrong FLASH locks you out for a moment (2 seconds by default). A FLASH a split second after someone else took the same card is simply too late, with no penalty.",
          ],
        ],
      },
      {
        title: "The end",
        body: ["The race ends when every stack is empty (or at the room's time limit). Most points wins; equal leaders share the victory. After the race, the solver's report shows how many slides each card really needed."],
      },
      {
        title: "Solo",
        body: [
          "Nine cards form a 3 × 3 grid, their solo side up: each shows one coloured electron in one of four shapes (circle, cross, star, square). The other 43 cards are your reserve. You have 4 minutes.",
          [
            "Reproduce a row or a column of the grid in the same place on your tablet, then claim it and choose a shape: every card of that line showing the shape is covered by a card from your reserve.",
            "The reminder token marks the line you just claimed: you cannot claim the same line twice in a row.",
            "The game ends when the clock runs out, when your reserve is empty, or when no line can ever be reproduced again (too many reds, violets or greens in a line).",
            "Your score is the number of cards left in your reserve; lower is better. 0 is TACHYON, 1–8 PHOTON, 9–16 NEUTRINO, 17–24 ELECTRON, 25–32 QUARK, more is GLUON.",
          ],
        ],
      },
    ],
  },
  {
    id: "neon_flip",
    name: "Neon Flip",
    tagline: "Flip the Lumin Grid to your colour with cards, cascades and locks.",
    players: "2 to 4 players (or teams of two), or solo against PROTO-ZERO",
    sections: [
      {
        title: "Goal",
        body: [
          "Control the most tiles of your colour at each checkpoint, build long lines of your colour, and fulfil your secret objective.",
        ],
      },
      {
        title: "The grid",
        body: [
          "A 6 × 6 grid of two-sided tiles. An A tile shows Cyber Cyan or Electric Pink, a B tile Laser Green or Solar Yellow; flipping turns a tile to its other side, never across. Seats take Cyan, Pink, Green and Yellow in order. With teams, Cyan and Green play against Pink and Yellow.",
        ],
      },
      {
        title: "Your turn",
        body: [
          "Gain 2 Energy (3 if you show 10 or more tiles). Then, in any order and as often as your Energy allows:",
          [
            "Play a Protocol card from your hand, paying its cost: flips in patterns (single, cross, diagonal X, a whole row or column, a ring), swaps, shifts, surges and overcharges.",
            "Manual flip: 2 Energy to flip one tile, at most twice a turn.",
            "Buy one of the 3 market cards for 1 Energy.",
            "Lock a tile showing your colour for 3 Energy: nobody can flip or move it until your next turn (2 locks at most).",
          ],
          "A tile flipped to your colour may start a cascade: flip one adjacent tile of the other colour, up to 3 cascade flips per action (you may stop early). End your turn, discard down to 6 cards, draw 1.",
        ],
      },
      {
        title: "Checkpoints and the end",
        body: [
          "When the draw pile runs out, the round ends with a checkpoint: 1 point per tile of your colour. After the last round (or when someone reaches 50), add 3 per straight run of 4+ of your colour, 5 for a fulfilled objective and 1 per 3 Energy left. Ties are broken by corners, then Energy, then the longest cascade.",
          "Neon Overdrive is the fast variant: you start with 6 Energy, cards cost 1 less, the tiles start split evenly between the colours, and a game clock runs (15 minutes unless the room says otherwise). Reach two thirds of the tiles your colours can show (24 of 36 with two players) and hold them through every rival's turn: if you still show them when your next turn starts, the game ends with a checkpoint, and the highest final score wins. When the clock runs out, the game ends after the current turn, also with a checkpoint.",
          "In Cyber-Solitaire you are Cyan against PROTO-ZERO, an automaton that paints the grid Pink after each of your turns: clear every Pink tile, or reach 50 points at a checkpoint, before its 24 cards run out. Once you beat it, try PROTO-ZERO overclocked: after each card and each overcharge it also cascades, turning up to 3 adjacent Cyan tiles Pink.",
          "New to the game? Seat an easy bot first; there are also medium and hard bots (the plain bot is hard).",
        ],
      },
    ],
  },
];
