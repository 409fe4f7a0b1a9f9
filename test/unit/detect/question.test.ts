import { describe, expect, it } from 'vitest';
import { optionsOf, questionOf } from '../../../src/detect/question.js';
import { jobPatch } from '../../../src/jobs/screen.js';
import { detectScreen as detect } from '../../../src/agents/index.js';
import type { JobFile } from '../../../src/jobs/types.js';
import screens from '../../fixtures/screens.json';

type Name = keyof typeof screens;
const lines = (name: Name): string[] => screens[name].lines;

describe('what a waiting agent asks', () => {
  // The question, with what it asks about where the dialog shows it (the command to approve).
  it.each([
    [
      'claude-real-approval',
      'Do you want to proceed? — rm -rf build',
      ['Yes', 'Yes, and always allow access to build/ from this project', 'No'],
    ],
    [
      'claude-approval',
      'Do you want to proceed? — rm -rf build',
      [
        'Yes',
        "Yes, and don't ask again for rm commands in /home/dev/proj",
        'No, and tell Claude what to do differently (esc)',
      ],
    ],
    [
      'claude-real-shell-approval',
      'Do you want to proceed? — npm test',
      [
        'Yes',
        'Yes, and don’t ask again for: npm test *',
        'Yes, and switch to auto mode · auto mode handles these prompts for you',
        'No',
      ],
    ],
    [
      'claude-real-mcp-approval',
      'Do you want to proceed? — text: "remember the parser"',
      ['Yes', "Yes, and don't ask again for notes — Add Note commands in /home/dev/proj", 'No'],
    ],
    [
      'claude-real-question',
      'Which parser should I use?',
      ['Recursive descent', 'PEG', 'Type something.', 'Chat about this'],
    ],
    [
      'claude-real-plan-approval',
      'Exit plan mode?',
      ['Yes, and switch to default (ask each time) for this session', 'No'],
    ],
    [
      'codex-real-patch-approval',
      'Would you like to make the following edits?',
      [
        'Yes, proceed (y)',
        "Yes, and don't ask again for these files (a)",
        'No, and tell Codex what to do differently (esc)',
      ],
    ],
    ['opencode-real-question', 'Which parser should I use?', ['Recursive descent', 'PEG', 'Type your own answer']],
    [
      'gemini-real-mcp-approval',
      'Allow execution of MCP tool "add_note" from server "notes"?',
      [
        'Allow once',
        'Allow tool for this session',
        'Allow all server tools for this session',
        'No, suggest changes (esc)',
      ],
    ],
    ['gemini-real-question', 'Which parser should I use?', ['Recursive descent', 'PEG', 'Enter a custom value']],
    [
      'codex-real-shell-approval',
      'Would you like to run the following command? — npm test',
      [
        'Yes, proceed (y)',
        "Yes, and don't ask again for commands that start with `npm test` (p)",
        'No, and tell Codex what to do differently (esc)',
      ],
    ],
    [
      'codex-real-mcp-approval',
      'Allow the notes MCP server to run tool "add_note"?',
      [
        'Allow                   Run the tool and continue',
        'Allow for this session  Run the tool and remember this choice for this session',
        'Always allow            Run the tool and remember this choice for future tool calls',
        'Cancel                  Cancel this tool call',
      ],
    ],
    [
      'codex-real-question',
      'Which parser should I use?',
      [
        'Recursive descent (Recommended)  Hand-written, easy to debug.',
        'PEG                              Generated from a grammar.',
        'None of the above                Optionally, add details in notes (tab)',
      ],
    ],
    [
      'claude-real-trust',
      'Quick safety check: Is this a project you created or one you trust?',
      ['Yes, I trust this folder', 'No, exit'],
    ],
    [
      'codex-approval',
      'Would you like to run the following command? — npm test',
      [
        'Yes, proceed (y)',
        "Yes, and don't ask again for this command (a)",
        'No, and tell Codex what to do differently (esc)',
      ],
    ],
    [
      'gemini-approval',
      'Allow execution of [npm]?',
      ['Yes, allow once', 'Yes, allow always ...', 'No, suggest changes (esc)'],
    ],
    [
      'gemini-real-approval',
      'Allow execution of [Shell]?',
      ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'],
    ],
    [
      'gemini-real-edit-approval',
      'Apply this change?',
      ['Allow once', 'Allow for this session', 'Modify with external editor', 'No, suggest changes (esc)'],
    ],
  ] as [Name, string, string[]][])('%s', (name, question, options) => {
    expect(questionOf(lines(name))).toBe(question);
    expect(optionsOf(lines(name))).toEqual(options);
  });

  it('no numbered choices: no question (Amp, OpenCode) and no options', () => {
    expect(questionOf(lines('amp-waiting'))).toBeUndefined();
    expect(optionsOf(lines('opencode-approval'))).toEqual([]);
  });

  it('a numbered list in an answer above the dialog is not taken for its choices', () => {
    const screen = ['● Two ways to fix it?', '  1. Rename the file', '  2. Move it', ...lines('claude-approval')];
    expect(optionsOf(screen)[0]).toBe('Yes');
    expect(questionOf(screen)).toBe('Do you want to proceed? — rm -rf build');
  });

  it('a job runs while its agent works or asks, is done when a turn ends, and an idle screen changes neither', () => {
    const patch = (name: Name): Partial<JobFile> => jobPatch(detect(screens[name]), screens[name].lines);
    expect(patch('claude-real-working')).toMatchObject({
      status: 'running',
      tempo: 'active',
      needs: null,
      block: null,
    });
    expect(patch('claude-real-approval')).toMatchObject({ status: 'running', tempo: 'blocked' });
    expect(patch('claude-real-stopped')).toMatchObject({ status: 'done', tempo: 'idle', needs: null });
    expect(patch('codex-real-stopped')).toMatchObject({ status: 'done', tempo: 'idle' });
    expect(patch('claude-real-idle')).toMatchObject({ tempo: 'idle' });
    expect(patch('claude-real-idle').status).toBeUndefined();
  });

  it('a job blocked on a real Claude Code approval needs the question and its command, not its key hints', () => {
    const screen = screens['claude-real-approval'];
    const patch = jobPatch(detect(screen), screen.lines);
    expect(patch).toMatchObject({
      tempo: 'blocked',
      needs: 'Do you want to proceed? — rm -rf build',
      detail: 'Esc to cancel · Tab to amend · ctrl+e to explain',
    });
    expect(patch.block!.questions[0]!.text).toBe('Do you want to proceed? — rm -rf build');
    // Amp shows no question row: the line the detector matched serves.
    const amp = screens['amp-waiting'];
    expect(jobPatch(detect(amp), amp.lines).needs).toBe('Waiting for Approval [y] approve [n] reject');
  });
});
