// The steps of a stored game as the viewer sends them (gameroom/web/viewer.py): pages from
// /api/results/games/{id}/steps?from=K, each step's caption and the spectator's view (the
// page's first view whole, the others as deltas: /static/delta.js), and its picture only
// when the game has no drawing in the browser; a game with one (/drawings/{game}.js) is
// drawn here from the views, one step when it is shown. Pages are asked for as they are
// needed (the step shown, and the page after it when the steps shown come near its end);
// while the game is being re-run the number of steps grows, and a light question
// (count=0) learns when it is over, how many steps it has and what its check found.

import { apply } from "/static/delta.js";

const AHEAD = 8;        // steps before the end of what is here at which the next page is asked
const DRAWN_KEPT = 12;  // pictures drawn lately, kept for scrubbing back and forth

export class StoredSteps {
  constructor(id, onChange) {
    this.url = `/api/results/games/${encodeURIComponent(id)}/steps`;
    this.onChange = onChange;  // called with this when the count, the end or the verdict changes
    this.steps = [];           // index -> {step, caption, view, svg}, filled a page at a time
    this.known = 0;            // steps the re-run has made so far
    this.done = false;
    this.total = null;
    this.verified = null;
    this.message = null;
    this.drawing = null;       // the game's drawing module, when it has one
    this.asked = new Map();    // page start -> its promise
    this.drawn = new Map();    // index -> svg (the last few drawn)
  }

  get length() { return this.done ? this.total : this.known; }

  // the first page: the steps from the first, and how to draw them
  async start() {
    await this.page(0);
    if (!this.done) this.watch();
    return this.length;
  }

  async page(from, count = null) {
    const key = count === null ? from : `${from}/${count}`;
    if (!this.asked.has(key)) {
      const query = count === null ? `?from=${from}` : `?from=${from}&count=${count}`;
      this.asked.set(key, (async () => {
        const reply = await fetch(this.url + query);
        const text = await reply.text();
        if (!reply.ok) throw new Error(JSON.parse(text).error || text);
        const page = JSON.parse(text);
        if (page.drawing && !this.drawing) this.drawing = await import(page.drawing);
        let view = null;
        for (const step of page.steps) {
          const at = step.step - 1;
          view = "view" in step ? step.view : apply(view, step.delta);
          if (!this.steps[at]) this.steps[at] = { step: step.step, caption: step.caption, view, svg: step.svg || null };
        }
        this.learn(page);
        return page;
      })().finally(() => { if (count !== null || !this.steps[from]) this.asked.delete(key); }));
    }
    return this.asked.get(key);
  }

  learn(page) {
    const before = [this.known, this.done, this.verified].join();
    this.known = Math.max(this.known, page.known);
    if (page.done) {
      this.done = true;
      this.total = page.total;
      this.verified = page.verified;
      this.message = page.message;
    }
    if ([this.known, this.done, this.verified].join() !== before && this.onChange) this.onChange(this);
  }

  // until the re-run is over: how many steps there are, then the total and the verdict
  async watch() {
    while (!this.done) {
      try { await this.page(this.known, 0); } catch (e) { console.error(e); await new Promise((r) => setTimeout(r, 2000)); }
    }
  }

  // the step at index (0-based) as the page shows it: {step, caption, view, svg}
  async frame(index) {
    if (!this.steps[index]) await this.page(Math.max(0, index - 1));   // the step before too: its tiles mark the last move
    const step = this.steps[index];
    if (!step) return null;
    let end = index;
    while (this.steps[end + 1]) end++;
    if (end - index < AHEAD && end + 1 < this.length) this.page(end + 1).catch((e) => console.error(e));
    if (!step.svg && this.drawing && step.view) {
      let svg = this.drawn.get(index);
      if (svg === undefined) {
        const before = this.steps[index - 1];
        svg = this.drawing.draw(step.view, step.caption, before ? before.view : null);
        this.drawn.set(index, svg);
        if (this.drawn.size > DRAWN_KEPT) this.drawn.delete(this.drawn.keys().next().value);
      }
      return { ...step, svg };
    }
    return step;
  }

  // a step already here (the one before the shown one, for the board's marks), or null
  here(index) { return this.steps[index] || null; }
}
