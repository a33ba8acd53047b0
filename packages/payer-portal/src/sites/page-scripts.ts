import { type PayerSitePage } from './payer-site.page';
import { SandboxPayerSitePage } from './sandbox-payer-site.page';

/**
 * The page scripts a payer's portal connection can name (decision 0021). A payer whose portal is reached
 * through a browser needs its own script here before it can be connected.
 */
const PAGE_SCRIPTS = {
  'sandbox-payer-site': (baseUrl: string): PayerSitePage => new SandboxPayerSitePage(baseUrl),
} as const;

export type PageScriptName = keyof typeof PAGE_SCRIPTS;

export const PAGE_SCRIPT_NAMES = Object.keys(PAGE_SCRIPTS) as PageScriptName[];

export const isPageScriptName = (name: string): name is PageScriptName =>
  Object.prototype.hasOwnProperty.call(PAGE_SCRIPTS, name);

/** The named page script driving the portal at `baseUrl`; null for a name no script has. */
export function pageScriptFor(name: string, baseUrl: string): PayerSitePage | null {
  return isPageScriptName(name) ? PAGE_SCRIPTS[name](baseUrl) : null;
}
