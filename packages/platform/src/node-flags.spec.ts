import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_NODE_FLAGS } from './node-flags';

const REPOSITORY = join(__dirname, '../../..');

describe('API_NODE_FLAGS', () => {
  it('are what the API image and the README start an API process with', () => {
    const command = ['node', ...API_NODE_FLAGS, 'apps/api/dist/main.js'];
    const dockerfile = readFileSync(join(REPOSITORY, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`CMD ${JSON.stringify(command).replace(/","/g, '", "')}`);
    const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
    expect(readme).toContain(`\`${command.join(' ')}\``);
  });
});
