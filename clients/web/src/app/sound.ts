/**
 * Sound effects and music, synthesized with the Web Audio API (no audio files).
 *
 * Every {@link SoundName} is a short synth gesture; the music is a slow synthwave loop (a
 * minor-key arpeggio over a pad and a soft kick) scheduled ahead on the audio clock. Effects
 * and music mute separately; both settings persist. Browsers only start audio after a user
 * gesture, so the context is created on the first click or key press, never before: an effect
 * asked for earlier (the turn alert of a reloaded page) is skipped, and the tab title says it.
 */

import type { SoundName } from "../boards/types";
import { storage } from "./storage";

type Voice = { freq: number; at: number; length: number; type?: OscillatorType; gain?: number; slide?: number };

/** Each effect as a list of voices (seconds from now, frequencies in Hz). */
const EFFECTS: Record<SoundName, Voice[]> = {
  move: [{ freq: 440, at: 0, length: 0.08, type: "triangle", slide: 660 }],
  flip: [
    { freq: 300, at: 0, length: 0.06, type: "square", gain: 0.12, slide: 900 },
    { freq: 900, at: 0.05, length: 0.07, type: "triangle", slide: 500 },
  ],
  slide: [{ freq: 220, at: 0, length: 0.09, type: "sawtooth", gain: 0.1, slide: 330 }],
  claim: [
    { freq: 523, at: 0, length: 0.1, type: "square", gain: 0.12 },
    { freq: 784, at: 0.08, length: 0.14, type: "square", gain: 0.12 },
  ],
  dice: [0, 0.05, 0.1, 0.15, 0.2].map((at, i) => ({ freq: 180 + i * 70, at, length: 0.04, type: "square" as const, gain: 0.08 })),
  success: [
    { freq: 523, at: 0, length: 0.12, type: "triangle" },
    { freq: 659, at: 0.1, length: 0.12, type: "triangle" },
    { freq: 784, at: 0.2, length: 0.2, type: "triangle" },
  ],
  fail: [
    { freq: 330, at: 0, length: 0.16, type: "sawtooth", gain: 0.1, slide: 220 },
    { freq: 220, at: 0.14, length: 0.22, type: "sawtooth", gain: 0.1, slide: 140 },
  ],
  alert: [
    { freq: 880, at: 0, length: 0.09, type: "sine" },
    { freq: 1320, at: 0.12, length: 0.12, type: "sine" },
  ],
  tick: [{ freq: 1200, at: 0, length: 0.03, type: "square", gain: 0.05 }],
  win: [523, 659, 784, 1047, 1319].map((freq, i) => ({ freq, at: i * 0.11, length: 0.3, type: "triangle" as const })),
  lose: [392, 349, 311, 262].map((freq, i) => ({ freq, at: i * 0.16, length: 0.3, type: "sawtooth" as const, gain: 0.08 })),
};

/** A minor i–VI–III–VII progression (A minor): root notes, then arpeggio notes, in MIDI. */
const PROGRESSION = [
  { bass: 45, notes: [57, 60, 64, 69] },
  { bass: 41, notes: [53, 57, 60, 65] },
  { bass: 48, notes: [55, 60, 64, 67] },
  { bass: 43, notes: [55, 59, 62, 67] },
];
const STEP = 0.2; // seconds per arpeggio step (8 steps a bar)

function midi(note: number): number {
  return 440 * 2 ** ((note - 69) / 12);
}

export class SoundBoard {
  effectsOn: boolean;
  musicOn: boolean;
  private context: AudioContext | null = null;
  private master: GainNode | null = null;
  private musicGain: GainNode | null = null;
  private musicTimer: ReturnType<typeof setInterval> | null = null;
  private nextStep = 0;
  private stepIndex = 0;
  private readonly listeners = new Set<() => void>();
  /** Whether the player has clicked, tapped or pressed a key on this page yet. */
  private gestured = false;

  constructor() {
    this.effectsOn = storage.get("sound") !== "off";
    this.musicOn = storage.get("music") === "on";
    const unlock = () => {
      this.gestured = true;
      this.ensure();
      if (this.musicOn) this.startMusic();
    };
    window.addEventListener("pointerdown", unlock, { once: true });
    window.addEventListener("keydown", unlock, { once: true });
  }

  /** Be told when a setting changes (to redraw toggles). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The audio context, made on first use once the player has made a gesture (null before,
   *  and where the browser has no Web Audio). */
  private ensure(): AudioContext | null {
    if (this.context) return this.context;
    if (!this.gestured && navigator.userActivation?.hasBeenActive !== true) return null;
    const Context = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Context) return null;
    try {
      this.context = new Context();
    } catch {
      return null;
    }
    this.master = this.context.createGain();
    this.master.gain.value = 0.35;
    this.master.connect(this.context.destination);
    return this.context;
  }

  /** Play a named effect (nothing when effects are muted or audio is unavailable). */
  play(name: SoundName): void {
    if (!this.effectsOn) return;
    const context = this.ensure();
    if (!context || !this.master || context.state === "closed") return;
    if (context.state === "suspended") void context.resume();
    const now = context.currentTime + 0.01;
    for (const voice of EFFECTS[name]) this.voice(context, this.master, voice, now);
  }

  private voice(context: AudioContext, out: AudioNode, voice: Voice, now: number): void {
    const osc = context.createOscillator();
    const gain = context.createGain();
    const start = now + voice.at;
    const end = start + voice.length;
    osc.type = voice.type ?? "sine";
    osc.frequency.setValueAtTime(voice.freq, start);
    if (voice.slide) osc.frequency.exponentialRampToValueAtTime(voice.slide, end);
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(voice.gain ?? 0.18, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, end);
    osc.connect(gain).connect(out);
    osc.start(start);
    osc.stop(end + 0.02);
  }

  setEffects(on: boolean): void {
    this.effectsOn = on;
    storage.set("sound", on ? "on" : "off");
    if (on) this.play("tick");
    this.changed();
  }

  setMusic(on: boolean): void {
    this.musicOn = on;
    storage.set("music", on ? "on" : "off");
    if (on) this.startMusic();
    else this.stopMusic();
    this.changed();
  }

  private startMusic(): void {
    const context = this.ensure();
    if (!context || !this.master || this.musicTimer) return;
    void context.resume();
    this.musicGain = context.createGain();
    this.musicGain.gain.value = 0.5;
    this.musicGain.connect(this.master);
    this.nextStep = context.currentTime + 0.1;
    this.stepIndex = 0;
    this.musicTimer = setInterval(() => this.schedule(), 100);
  }

  private stopMusic(): void {
    if (this.musicTimer) clearInterval(this.musicTimer);
    this.musicTimer = null;
    if (this.musicGain && this.context) {
      this.musicGain.gain.setTargetAtTime(0, this.context.currentTime, 0.1);
      const gain = this.musicGain;
      setTimeout(() => gain.disconnect(), 600);
    }
    this.musicGain = null;
  }

  /** Schedule the loop's steps up to half a second ahead. */
  private schedule(): void {
    const context = this.context;
    if (!context || !this.musicGain) return;
    while (this.nextStep < context.currentTime + 0.5) {
      const bar = PROGRESSION[Math.floor(this.stepIndex / 8) % PROGRESSION.length]!;
      const step = this.stepIndex % 8;
      const note = bar.notes[[0, 1, 2, 3, 2, 1, 3, 2][step]!]!;
      this.voice(context, this.musicGain, { freq: midi(note + 12), at: 0, length: STEP * 0.9, type: "triangle", gain: 0.05 }, this.nextStep);
      if (step === 0) {
        this.voice(context, this.musicGain, { freq: midi(bar.bass), at: 0, length: STEP * 7.5, type: "sawtooth", gain: 0.035 }, this.nextStep);
        for (const pad of bar.notes.slice(0, 3)) {
          this.voice(context, this.musicGain, { freq: midi(pad), at: 0, length: STEP * 7.8, type: "sine", gain: 0.025 }, this.nextStep);
        }
      }
      if (step % 4 === 0) {
        this.voice(context, this.musicGain, { freq: 120, at: 0, length: 0.18, type: "sine", gain: 0.12, slide: 40 }, this.nextStep);
      }
      this.nextStep += STEP;
      this.stepIndex += 1;
    }
  }
}
