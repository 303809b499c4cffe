// A run's summary rendered in one of the report formats, by name: what a command or an embedding program calls to
// write a report (the flags that choose formats and paths are the command line's business).
import type { Catalogue } from '../requirements.js';
import type { RunSummary } from '../run/result.js';
import { renderHtmlReport } from './html.js';
import { renderJsonReport } from './json.js';
import { renderJunitReport } from './junit.js';
import { renderMarkdownReport } from './markdown.js';

/** The report formats `renderReport` writes. */
export const REPORT_FORMATS = ['json', 'junit', 'html', 'markdown'] as const;
/** One of `REPORT_FORMATS`. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * Renders the summary as a report of the given format.
 * @example
 * writeFileSync('report.xml', renderReport('junit', summary));
 */
export function renderReport(
  format: ReportFormat,
  summary: RunSummary,
  catalogue?: Catalogue,
): string {
  switch (format) {
    case 'json':
      return renderJsonReport(summary);
    case 'junit':
      return renderJunitReport(summary);
    case 'html':
      return renderHtmlReport(summary, catalogue ? { catalogue } : {});
    case 'markdown':
      return renderMarkdownReport(summary);
  }
}
