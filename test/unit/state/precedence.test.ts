import { describe, expect, it } from 'vitest';
import type { AgentState } from '../../../src/detect/index.js';
import { decide } from '../../../src/state/precedence.js';
import type { SourcedState } from '../../../src/state/precedence.js';

const screen = (state: AgentState, at: number): SourcedState => ({ state, source: 'pty-scrape', detail: 'screen', at });
const live = (state: AgentState, at: number): SourcedState => ({ state, source: 'session-file', detail: 'live', at });
const turn = (state: AgentState, at: number): SourcedState => ({ state, source: 'jsonl-watcher', detail: 'turn', at });

describe('precedence of sources', () => {
  it('1: without a confirmed source the screen decides', () => {
    expect(decide({ screen: screen('stopped', 10) })).toMatchObject({ state: 'stopped', source: 'pty-scrape' });
  });

  it('2: a Completed turn outranks the screen and an idle session file of the same turn', () => {
    expect(
      decide({ screen: screen('stopped', 30), live: live('idle', 40), turn: turn('completed', 20) }),
    ).toMatchObject({
      state: 'completed',
      source: 'jsonl-watcher',
    });
  });

  it('2: the session file going busy after the turn ended starts a new turn', () => {
    expect(
      decide({ screen: screen('stopped', 30), live: live('working', 50), turn: turn('completed', 20) }),
    ).toMatchObject({
      state: 'working',
      source: 'session-file',
    });
  });

  it('2: work on the screen after a Completed starts a new turn', () => {
    expect(decide({ screen: screen('working', 60), turn: turn('completed', 20) })).toMatchObject({
      state: 'working',
      source: 'pty-scrape',
    });
  });

  it('2: an old sign of work on the screen does not undo a newer Completed', () => {
    expect(decide({ screen: screen('working', 10), turn: turn('completed', 20) })).toMatchObject({
      state: 'completed',
    });
  });

  it('2: Failed (an interrupt, an API error) holds like Completed', () => {
    expect(decide({ screen: screen('idle', 30), live: live('idle', 31), turn: turn('failed', 20) })).toMatchObject({
      state: 'failed',
    });
  });

  it('3: the session file decides over a transcript record of work in progress, older or newer', () => {
    expect(decide({ screen: screen('idle', 50), live: live('waiting', 40), turn: turn('working', 30) })).toMatchObject({
      state: 'waiting',
      source: 'session-file',
    });
    expect(decide({ screen: screen('idle', 50), live: live('waiting', 40), turn: turn('working', 45) })).toMatchObject({
      state: 'waiting',
      source: 'session-file',
    });
  });

  it('3: without a session file the transcript decides, over the screen', () => {
    expect(decide({ screen: screen('stopped', 50), turn: turn('working', 30) })).toMatchObject({
      state: 'working',
      source: 'jsonl-watcher',
    });
  });

  it('4: a question on the screen after a confirmed Working shows (Codex writes no record for it)', () => {
    expect(decide({ screen: screen('waiting', 40), turn: turn('working', 30) })).toMatchObject({
      state: 'waiting',
      source: 'pty-scrape',
    });
  });

  it('4: a question on the screen is not hidden by a record of work read after it (records land after the screen)', () => {
    // Gemini CLI records its tool call, then asks on the screen; under load the record is read last.
    expect(decide({ screen: screen('waiting', 30), turn: turn('working', 40) })).toMatchObject({
      state: 'waiting',
      source: 'pty-scrape',
    });
    // The live status still tells (Claude Code's session file says when it waits).
    expect(
      decide({ screen: screen('waiting', 30), live: live('working', 40), turn: turn('working', 40) }),
    ).toMatchObject({ state: 'working' });
  });

  it('4: no record of an end hides a question on the screen; a live status that spoke after it does', () => {
    // Gemini CLI records a response's text, then asks for its tool call on the screen.
    expect(decide({ screen: screen('waiting', 30), turn: turn('completed', 40) })).toMatchObject({
      state: 'waiting',
      source: 'pty-scrape',
    });
    expect(decide({ screen: screen('waiting', 30), turn: turn('failed', 40) })).toMatchObject({ state: 'waiting' });
    // Claude Code's session file went busy after the question showed: it was answered.
    expect(
      decide({ screen: screen('waiting', 30), live: live('working', 35), turn: turn('completed', 40) }),
    ).toMatchObject({ state: 'completed' });
  });

  it('4: a failure on the screen after a record of work shows (Qwen Code writes no record of an API error)', () => {
    expect(decide({ screen: screen('failed', 40), turn: turn('working', 30) })).toMatchObject({
      state: 'failed',
      source: 'pty-scrape',
    });
    // After the record was written, though it was read again later (OpenCode's store, written as it stops).
    expect(decide({ screen: screen('failed', 40), turn: { ...turn('working', 50), written: 20 } })).toMatchObject({
      state: 'failed',
    });
    expect(decide({ screen: screen('failed', 40), turn: { ...turn('working', 50), written: 45 } })).toMatchObject({
      state: 'working',
    });
    // Not an older one, and not over the live status (which tells the turn's end itself).
    expect(decide({ screen: screen('failed', 20), turn: turn('working', 30) })).toMatchObject({ state: 'working' });
    expect(
      decide({ screen: screen('failed', 40), live: live('working', 30), turn: turn('working', 30) }),
    ).toMatchObject({ state: 'working' });
  });

  it('4: work on the screen after a confirmed Idle shows', () => {
    expect(decide({ screen: screen('working', 40), live: live('idle', 30) })).toMatchObject({ state: 'working' });
  });

  it('4: but a screen Working does not undo a confirmed Waiting, older or newer (the file says when it ends)', () => {
    expect(decide({ screen: screen('working', 20), live: live('waiting', 30) })).toMatchObject({ state: 'waiting' });
    expect(decide({ screen: screen('working', 40), live: live('waiting', 30) })).toMatchObject({ state: 'waiting' });
  });
});
