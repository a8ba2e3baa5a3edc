import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@loci/common';
import { ExportCursor, ExportKind, TenantExportRepository, TenantsRepository } from '@loci/db';

/** Bumped when a record's shape changes incompatibly. */
export const EXPORT_FORMAT_VERSION = 1;

/**
 * The tables of an export in the order they are written (parents first, so a reader can
 * rebuild the graph in one pass), the record type each row becomes, and the rows per page:
 * documents carry whole texts (up to the upload limit each), so they come a few at a time.
 */
const SECTIONS: ReadonlyArray<{ kind: ExportKind; type: string; pageSize: number; vectorPageSize?: number }> = [
  { kind: 'graph', type: 'graph', pageSize: 500 },
  { kind: 'document', type: 'document', pageSize: 16 },
  { kind: 'chunk', type: 'chunk', pageSize: 200, vectorPageSize: 50 },
  { kind: 'entity', type: 'entity', pageSize: 500, vectorPageSize: 50 },
  { kind: 'edge', type: 'edge', pageSize: 500, vectorPageSize: 100 },
  { kind: 'entity_document', type: 'entity_document', pageSize: 1000 },
  { kind: 'edge_document', type: 'edge_document', pageSize: 1000 },
  { kind: 'entity_chunk', type: 'entity_chunk', pageSize: 1000 },
  { kind: 'edge_chunk', type: 'edge_chunk', pageSize: 1000 },
  // The inference ledger: one record per model call, with its tokens and cost (micro-dollars).
  { kind: 'inference', type: 'usage', pageSize: 500 },
  // The request log: one record per question, with its route, status and steps (trajectory).
  { kind: 'request_log', type: 'request', pageSize: 200 },
];

/** The two ids of a provenance link, named as the link's columns are. */
const LINK_FIELDS: Partial<Record<ExportKind, [string, string]>> = {
  entity_document: ['entity_id', 'document_id'],
  edge_document: ['edge_id', 'document_id'],
  entity_chunk: ['entity_id', 'chunk_id'],
  edge_chunk: ['edge_id', 'chunk_id'],
};

export interface ExportOptions {
  /** Include the rows' vectors (1024 numbers each, model-specific; off by default). */
  vectors: boolean;
}

/**
 * A tenant's data as JSON Lines: a header record, then graphs, documents, chunks, entities,
 * edges, their provenance links, the usage ledger and the request log, one record per line with
 * a `type`, and an
 * `end` record with the count of each type (a reader that finds no `end` line got a cut-short
 * export). Read from the store a page at a time as the client takes the lines.
 */
@Injectable()
export class TenantExportService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly rows: TenantExportRepository,
  ) {}

  /** Checks the tenant exists (so a missing one is a 404, before any line is sent) and opens the export. */
  async open(tenantId: string, options: ExportOptions): Promise<AsyncIterable<string>> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError('No such tenant.');
    // Read from a replica: one that has replayed everything the tenant wrote before this request.
    await this.rows.begin(tenant.id);
    const header = {
      type: 'export',
      format_version: EXPORT_FORMAT_VERSION,
      tenant_id: tenant.id,
      tenant_name: tenant.name,
      exported_at: new Date().toISOString(),
      vectors: options.vectors,
    };
    return this.lines(tenant.id, header, options);
  }

  private async *lines(tenantId: string, header: Record<string, unknown>, options: ExportOptions): AsyncGenerator<string> {
    yield line(header);
    const counts: Record<string, number> = {};
    for (const section of SECTIONS) {
      const pageSize = options.vectors ? (section.vectorPageSize ?? section.pageSize) : section.pageSize;
      counts[section.type] = 0;
      let after: ExportCursor = null;
      do {
        const page = await this.rows.page(tenantId, section.kind, after, pageSize, options.vectors);
        // One string per page: a write per row would cost more than the rows.
        if (page.rows.length > 0) yield page.rows.map((row) => line(toRecord(section.kind, section.type, row))).join('');
        counts[section.type] += page.rows.length;
        after = page.next;
      } while (after !== null);
    }
    yield line({ type: 'end', counts });
  }
}

function line(record: Record<string, unknown>): string {
  return `${JSON.stringify(record)}\n`;
}

/**
 * A row as a record: snake_case fields as in the API, without the tenant id (it is the
 * header's). A column named `type` (an entity's) becomes `<record type>_type`, since `type`
 * says what the record is.
 */
function toRecord(kind: ExportKind, type: string, row: Record<string, unknown>): Record<string, unknown> {
  const link = LINK_FIELDS[kind];
  if (link) return { type, [link[0]]: row.a, [link[1]]: row.b };
  const record: Record<string, unknown> = { type };
  for (const [key, value] of Object.entries(row)) {
    if (key === 'tenantId') continue;
    const field = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    record[field === 'type' ? `${type}_type` : field] = value;
  }
  return record;
}
