import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHosts, readHosts, shownCommand } from '../../../../src/jobs/remote/hosts.js';

describe('hosts.json', () => {
  it('takes hosts by name with their command, mado, cwd and connect_ms', () => {
    const { hosts, problems } = parseHosts(
      {
        box: { command: ['ssh', '-T', 'box'] },
        'dev.vm_2': {
          command: ['docker', 'exec', '-i', 'dev', 'sh'],
          mado: 'node /opt/madohub/dist/mado.js',
          cwd: '~/src/app',
          connect_ms: 5000,
        },
      },
      'hosts.json',
    );
    expect(problems).toEqual([]);
    expect(hosts.get('box')).toEqual({ command: ['ssh', '-T', 'box'], mado: 'mado' });
    expect(hosts.get('dev.vm_2')).toEqual({
      command: ['docker', 'exec', '-i', 'dev', 'sh'],
      mado: 'node /opt/madohub/dist/mado.js',
      cwd: '~/src/app',
      connectMs: 5000,
    });
  });

  it('leaves out a wrong entry with why, and keeps the others', () => {
    const { hosts, problems } = parseHosts(
      {
        good: { command: ['ssh', 'good'] },
        'bad name': { command: ['ssh'] },
        local: { command: ['sh'] },
        nocommand: {},
        emptycommand: { command: [] },
        notstrings: { command: ['ssh', 3] },
        noprogram: { command: [''] },
        // A newline would be a second line in the other side's shell.
        injected: { command: ['ssh', 'x'], mado: 'mado\nrm -rf ~' },
        control: { command: ['ssh', 'x'], cwd: 'a\u001b[2Jb' },
        slow: { command: ['ssh', 'x'], connect_ms: 10 },
        extra: { command: ['ssh', 'x'], colour: 'red' },
        '\u001b]0;evil\u0007': { command: ['ssh'] },
      },
      'F',
    );
    expect([...hosts.keys()]).toEqual(['good', 'extra']);
    expect(problems).toEqual([
      "F: host 'bad name' left out: a name is letters, digits, '.', '_' or '-' (at most 32, not 'local')",
      "F: host 'local' left out: a name is letters, digits, '.', '_' or '-' (at most 32, not 'local')",
      'F: host \'nocommand\' left out: command must be a list of 1 to 64 strings (["ssh", "-T", "box"])',
      'F: host \'emptycommand\' left out: command must be a list of 1 to 64 strings (["ssh", "-T", "box"])',
      'F: host \'notstrings\' left out: command must be a list of 1 to 64 strings (["ssh", "-T", "box"])',
      "F: host 'noprogram' left out: its command names no program",
      "F: host 'injected' left out: mado must be a command line of at most 1024 printable characters",
      "F: host 'control' left out: cwd must be a folder of at most 1024 printable characters",
      "F: host 'slow' left out: connect_ms must be a whole number of ms from 500 to 120000",
      "F: host 'extra' has an unknown field 'colour' (passed over)",
      // A name from the file is printed without its control characters.
      "F: host '?]0;evil?' left out: a name is letters, digits, '.', '_' or '-' (at most 32, not 'local')",
    ]);
    expect(parseHosts([1, 2], 'F').problems).toEqual(['F: must be a table of hosts by name']);
    expect(parseHosts(undefined, 'F')).toEqual({ hosts: new Map(), problems: [] });
  });

  it('reads $XDG_CONFIG_HOME/madohub/hosts.json bounded: missing is none, a FIFO or garbage is said', () => {
    const cfg = mkdtempSync(path.join(tmpdir(), 'madohub-hosts-'));
    const env = { XDG_CONFIG_HOME: cfg, HOME: cfg };
    expect(readHosts(env)).toEqual({ hosts: new Map(), problems: [] });
    mkdirSync(path.join(cfg, 'madohub'));
    const file = path.join(cfg, 'madohub', 'hosts.json');
    writeFileSync(file, '{ "box": ');
    expect(readHosts(env).problems[0]).toMatch(/hosts\.json: not JSON/);
    // A dotfile manager's link is followed (it is the user's own file).
    const real = path.join(cfg, 'real.json');
    writeFileSync(real, JSON.stringify({ box: { command: ['ssh', 'box'] } }));
    execFileSync('rm', [file]);
    symlinkSync(real, file);
    expect([...readHosts(env).hosts.keys()]).toEqual(['box']);
    execFileSync('rm', [file]);
    execFileSync('mkfifo', [file]);
    expect(readHosts(env).problems).toEqual([`${file}: not a regular file`]);
    execFileSync('rm', [file]);
    writeFileSync(file, ' '.repeat(70 * 1024));
    expect(readHosts(env).problems[0]).toMatch(/larger than 64 KiB/);
  });
});

describe('a host’s command shown to a person', () => {
  it('keeps no secret given as NAME=value, and no control character', () => {
    expect(
      shownCommand([
        'ssh',
        '-T',
        'box',
        'env',
        'ANTHROPIC_API_KEY=sk-ant-1234',
        'GH_TOKEN=ghp_x',
        'HOME=/h',
        'db_password=p',
        'a\u001b[2Jb',
        'sh',
      ]),
    ).toBe('ssh -T box env ANTHROPIC_API_KEY=… GH_TOKEN=… HOME=/h db_password=… a?[2Jb sh');
  });
});
