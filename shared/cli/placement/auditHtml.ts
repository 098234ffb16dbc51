// Owns the HTML page's sender audit section: the score and its deductions, the fix-first list in order, each rule
// set's items, the findings by severity and what was not checked; every value escaped, since findings name sender text.
import type { ReportAudit } from '../../domain/auditReport';
import type { WireAudit } from '../../domain/placementReport';
import { readableAudit } from './auditShape';
import {
  auditStateLine,
  copyText,
  deductionTexts,
  findingsBySeverity,
  fixFirstTexts,
  MAX_SHOWN,
  notCheckedTexts,
  scoreText,
} from './auditView';
import { escapeHtml } from './escapeHtml';
import { printable } from './explain';

export const AUDIT_STYLE = `
#audit p.score{font-size:1.1rem;margin:.25rem 0}#audit h3{font-size:1rem;margin:1rem 0 .35rem}
#audit td.pass{color:#2e7d32}#audit td.fail{color:#c62828;font-weight:600}#audit td.unknown{color:#757575;font-style:italic}
#audit span.rank{color:#616161}#audit li{margin:.2rem 0}
`;

const items = (id: string, lines: readonly string[], tag: 'ul' | 'ol' = 'ul') =>
  `<${tag} id="${id}">\n${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('\n')}\n</${tag}>`;

const cell = (value: string, cls?: string) =>
  `<td${cls ? ` class="${cls}"` : ''}>${escapeHtml(printable(value, 200))}</td>`;

export const auditSection = (given: WireAudit | ReportAudit | undefined): string => {
  const audit = readableAudit(given);
  const state = auditStateLine(audit);
  if (state !== undefined || audit?.state !== 'ready')
    return `<section id="audit" data-state="${audit?.state ?? 'absent'}">\n<p class="state">${escapeHtml(state ?? '')}</p>\n</section>`;
  const fixFirst = fixFirstTexts(audit);
  const deductions = deductionTexts(audit);
  const notChecked = notCheckedTexts(audit);
  const rows = audit.checklists
    .slice(0, MAX_SHOWN)
    .flatMap((checklist) =>
      checklist.items
        .slice(0, MAX_SHOWN)
        .map(
          (item) =>
            `<tr>${cell(checklist.rule_set)}${cell(item.label)}${cell(item.judgement, item.judgement)}${cell(item.detail ?? '')}</tr>`,
        ),
    );
  const findings = findingsBySeverity(audit).map(
    ([severity, found]) =>
      `<h4>${severity}</h4>\n<ul class="findings ${severity}">\n${found
        .map(
          (finding) =>
            `<li><span class="title">${escapeHtml(printable(finding.title, 200))}</span> <span class="fix">${escapeHtml(printable(finding.fix, 300))}</span></li>`,
        )
        .join('\n')}\n</ul>`,
  );
  // "Everything checked" only where the score says nothing was left out (partial false).
  const notCheckedNone = (partial: boolean) =>
    partial
      ? '<p>Some of what the audit looks at was not checked.</p>'
      : '<p>Everything the audit looks at was checked (an unknown rule item needs data only its provider has).</p>';
  return `<section id="audit" data-state="ready">
<p class="score">Score <strong>${escapeHtml(scoreText(audit))}</strong></p>
<p class="meta">${escapeHtml(copyText(audit))}</p>
${deductions.length > 0 ? items('deductions', deductions) : '<p>Nothing was taken off the score.</p>'}
<h3>Fix first</h3>
${
  fixFirst.length > 0
    ? `<ol id="fix-first">\n${fixFirst
        .map(
          (item) =>
            `<li><span class="fix">${escapeHtml(item.fix)}</span> <span class="rank">found: ${escapeHtml(item.finding)}; ranks here: ${escapeHtml(item.why)}</span></li>`,
        )
        .join('\n')}\n</ol>`
    : `<p>Nothing to fix first${audit.score.partial ? ' among what was checked' : ''}.</p>`
}
<h3>Bulk-sender rules</h3>
<table id="checklists">
<thead><tr><th>Rule set</th><th>Item</th><th>Result</th><th>Detail</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<h3>Findings</h3>
${findings.length > 0 ? findings.join('\n') : `<p>No findings${audit.score.partial ? ' among what was checked' : ''}.</p>`}
<h3>Not checked</h3>
${notChecked.length > 0 ? items('audit-not-checked', notChecked) : notCheckedNone(audit.score.partial)}
</section>`;
};
