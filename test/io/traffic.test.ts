import { createWriteStream, mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import { readTrafficFile } from '../../io/traffic';
import { InputError } from '../../lib/errors';
import { tempDir } from '../support/temp-dir';

const dir = tempDir('traffic-', 'all');

describe('reading a traffic file from disk', () => {
  test('GIVEN 50,000 rows with CRLF line ends and a byte order mark WHEN read THEN they are streamed line by line and counted', async () => {
    // The million-row case is timed by `npm run bench:traffic`; the reader is the same.
    const file = join(dir(), 'rows.csv');
    const out = createWriteStream(file);
    out.write('\uFEFFtimestamp,input_tokens,output_tokens\r\n');
    for (let i = 0; i < 50_000; i++) {
      out.write(`${1.7e9 + i * 0.25},${1 + (i % 1000)},${1 + (i % 100)}\r\n`);
    }
    await new Promise<void>((resolve) => out.end(resolve));
    const s = await readTrafficFile(file);
    expect(s).toMatchObject({ requests: 50_000, input: { mean: 500.5, max: 1000 }, output: { mean: 50.5 }, arrivals: { meanRps: 4 } });
    expect(s.arrivals?.scv).toBeLessThan(0.01);
  });

  test('GIVEN no file, a folder or an empty file WHEN read THEN each is refused naming the path', async () => {
    const empty = join(dir(), 'empty.csv');
    writeFileSync(empty, '');
    mkdirSync(join(dir(), 'folder'));
    await expect(readTrafficFile(join(dir(), 'missing.csv'))).rejects.toThrow(/missing\.csv: cannot read the file \(ENOENT\)/);
    await expect(readTrafficFile(join(dir(), 'folder'))).rejects.toThrow(/folder: not a file/);
    await expect(readTrafficFile(empty)).rejects.toThrow(InputError);
    await expect(readTrafficFile(empty)).rejects.toThrow('empty.csv: the file is empty');
  });
});
