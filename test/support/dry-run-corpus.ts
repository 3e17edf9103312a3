/**
 * The dry-run scoring corpus (test/fixtures/dry-run-corpus/<PROVIDER>/*.json): each exchange
 * runs through the real pipeline (ingest with redaction, then runPipeline) twice, with the
 * provider's built-in profile and in generic mode (no provider_id, no profile). Figures per
 * provider and mode:
 * - recall: injected defects reported by an ERROR or WARNING finding ON THE EXPECTED FIELD
 *   (its service_path or its provider path);
 * - false-finding rate: clean exchanges with any ERROR or WARNING finding.
 * A third mode, blind, is generic mode on traffic whose provider nothing names: the
 * provider's API host is replaced by an unknown one (a proxy, a provider not in the catalogue).
 *
 * The held-out corpus (test/fixtures/dry-run-corpus/holdout/<PROVIDER>/*.json) is shaped
 * unlike the main one and is scored the same way, to check that the pipeline generalises.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyring } from '../../domain/crypto';
import type { DryRunEvent } from '../../domain/dry-run/codecs';
import { ingestEvent } from '../../domain/dry-run/decode';
import { Finding, runPipeline, ValidationReport } from '../../domain/dry-run/pipeline';
import { BUILT_IN_PROFILES, MappingProfile } from '../../domain/dry-run/profiles';
import { organizationRedactor } from '../../domain/dry-run/redact';

export interface CorpusEvent extends Omit<DryRunEvent, 'headers' | 'body'> {
  headers: Record<string, string>;
  body?: unknown;
}

export interface CorpusExchange {
  file: string;
  provider_id: string;
  name: string;
  defect: string | null;
  service_request: Record<string, unknown>;
  events: CorpusEvent[];
  expected: string[];
}

export type Mode = 'profile' | 'generic' | 'blind';
export const MODES: Mode[] = ['profile', 'generic', 'blind'];

export interface ExchangeResult {
  exchange: CorpusExchange;
  mode: Mode;
  report: ValidationReport;
  /** Defect exchanges: a finding on the expected field. Clean ones: no ERROR / WARNING. */
  ok: boolean;
}

export interface Figures {
  provider: string;
  mode: Mode;
  defects: number;
  found: number;
  recall: number;
  clean: number;
  falseFindings: number;
  falseFindingRate: number;
  misses: ExchangeResult[];
}

export const CORPUS_DIR = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'dry-run-corpus');
export const HOLDOUT_DIR = path.join(CORPUS_DIR, 'holdout');

export function loadCorpus(dir = CORPUS_DIR): CorpusExchange[] {
  const out: CorpusExchange[] = [];
  for (const provider of fs.readdirSync(dir).sort()) {
    const sub = path.join(dir, provider);
    if (!fs.statSync(sub).isDirectory() || sub === HOLDOUT_DIR) continue;
    for (const file of fs.readdirSync(sub).filter((f) => f.endsWith('.json')).sort()) {
      out.push({ file: `${provider}/${file}`, ...(JSON.parse(fs.readFileSync(path.join(sub, file), 'utf8')) as Omit<CorpusExchange, 'file'>) });
    }
  }
  return out;
}

const b64 = (value: string) => Buffer.from(value).toString('base64');

export function toDryRunEvent(e: CorpusEvent): DryRunEvent {
  const { headers, body, ...rest } = e;
  return { ...rest, headers: b64(JSON.stringify(headers)), ...(body === undefined ? {} : { body: b64(typeof body === 'string' ? body : JSON.stringify(body)) }) } as DryRunEvent;
}

export function loadHoldout(): CorpusExchange[] {
  return loadCorpus(HOLDOUT_DIR).map((c) => ({ ...c, file: `holdout/${c.file}` }));
}

/** Hosts of the merchant's own endpoints (webhook receivers) stay; provider API hosts become unknown. */
const UNKNOWN_API_HOST = 'https://gateway.unlisted-provider.example';

function withoutProviderHost(event: CorpusEvent): CorpusEvent {
  return event.type === 'WEBHOOK' || !event.base_url ? event : { ...event, base_url: UNKNOWN_API_HOST };
}

const redactor = organizationRedactor(generateKeyring('corpus'), 'org-corpus');

export function isFinding(f: Finding): boolean {
  return f.severity === 'ERROR' || f.severity === 'WARNING';
}

export function onField(f: Finding, field: string): boolean {
  return isFinding(f) && (f.service_path === field || f.provider?.path === field);
}

export function gradeExchange(exchange: CorpusExchange, mode: Mode, profiles: MappingProfile[] = BUILT_IN_PROFILES): ExchangeResult {
  const profile = mode === 'profile' ? profiles.find((p) => p.provider_id === exchange.provider_id) ?? null : null;
  const events = mode === 'blind' ? exchange.events.map(withoutProviderHost) : exchange.events;
  const report = runPipeline({
    serviceRequest: redactor.value(exchange.service_request) as Record<string, unknown>,
    events: events.map((e) => ingestEvent(toDryRunEvent(e), redactor)),
    profile,
    providerId: mode === 'profile' ? exchange.provider_id : null,
  });
  const ok = exchange.expected.length ? exchange.expected.some((field) => report.findings.some((f) => onField(f, field))) : !report.findings.some(isFinding);
  return { exchange, mode, report, ok };
}

export function scoreCorpus(corpus = loadCorpus(), modes: Mode[] = MODES): Figures[] {
  const figures: Figures[] = [];
  const providers = [...new Set(corpus.map((c) => c.provider_id))].sort();
  for (const mode of modes) {
    for (const provider of providers) {
      const results = corpus.filter((c) => c.provider_id === provider).map((c) => gradeExchange(c, mode));
      const defects = results.filter((r) => r.exchange.expected.length);
      const clean = results.filter((r) => !r.exchange.expected.length);
      const found = defects.filter((r) => r.ok).length;
      const falseFindings = clean.filter((r) => !r.ok).length;
      figures.push({
        provider, mode, defects: defects.length, found, recall: defects.length ? found / defects.length : 1,
        clean: clean.length, falseFindings, falseFindingRate: clean.length ? falseFindings / clean.length : 0,
        misses: results.filter((r) => !r.ok),
      });
    }
  }
  return figures;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The table `npm run score:dry-run` prints; with details, what each miss reported instead. */
export function formatFigures(figures: Figures[], details = false): string {
  const lines = ['mode     provider        recall            false findings'];
  for (const f of figures) {
    lines.push(`${f.mode.padEnd(8)} ${f.provider.padEnd(15)} ${`${pct(f.recall)} (${f.found}/${f.defects})`.padEnd(17)} ${pct(f.falseFindingRate)} (${f.falseFindings}/${f.clean})`);
  }
  for (const mode of MODES) {
    const of = figures.filter((f) => f.mode === mode);
    if (!of.length) continue;
    const d = of.reduce((a, f) => a + f.defects, 0);
    const found = of.reduce((a, f) => a + f.found, 0);
    const c = of.reduce((a, f) => a + f.clean, 0);
    const ff = of.reduce((a, f) => a + f.falseFindings, 0);
    lines.push(`${mode.padEnd(8)} ${'ALL'.padEnd(15)} ${`${pct(d ? found / d : 1)} (${found}/${d})`.padEnd(17)} ${pct(c ? ff / c : 0)} (${ff}/${c})`);
  }
  if (details) {
    for (const f of figures) {
      for (const miss of f.misses) {
        const got = miss.report.findings.filter(isFinding).map((x) => `${x.code}@${x.service_path ?? x.provider?.path}`);
        lines.push(`  ${miss.mode} ${miss.exchange.file}: expected ${JSON.stringify(miss.exchange.expected)}, got ${got.join(', ') || 'nothing'}`);
      }
    }
  }
  return lines.join('\n');
}
