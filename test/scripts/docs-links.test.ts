import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { anchorsOf, brokenLinks, headingSlug } from '../../scripts/docs-links';

describe('the anchors and links of Markdown pages', () => {
  test('GIVEN headings WHEN slugged THEN they are GitHub\'s anchors, repeats numbered', () => {
    expect(headingSlug('`cdk-inferentia promote`')).toBe('cdk-inferentia-promote');
    expect(headingSlug('Generative plans: a proof in tokens becomes a measured row')).toBe('generative-plans-a-proof-in-tokens-becomes-a-measured-row');
    expect(headingSlug('compileJob?')).toBe('compilejob');
    expect([...anchorsOf('# Plan\n## kind\n```sh\n# not a heading\n```\n### kind\n<a id="here"></a>\n')])
      .toEqual(['plan', 'kind', 'kind-1', 'here']);
  });

  test('GIVEN links to a missing page, a missing anchor and good ones WHEN checked THEN only the broken are named, with their line', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'links-'));
    try {
      fs.mkdirSync(path.join(root, 'docs'));
      fs.writeFileSync(path.join(root, 'docs', 'b.md'), '# B\n## Plan targets\n');
      fs.writeFileSync(path.join(root, 'a.md'), [
        '# A', 'See [b](docs/b.md#plan-targets), [top](#a), [web](https://example.com/x.md#y).',
        '[gone](docs/c.md) and [stale](docs/b.md#plantargets-1)', '```md', '[in code](nowhere.md)', '```', 'and `[code](nowhere.md)`',
      ].join('\n'));
      expect(brokenLinks(root, ['a.md'])).toEqual([
        { page: 'a.md', line: 3, link: 'docs/c.md', problem: 'docs/c.md does not exist' },
        { page: 'a.md', line: 3, link: 'docs/b.md#plantargets-1', problem: 'docs/b.md has no heading for #plantargets-1' },
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
