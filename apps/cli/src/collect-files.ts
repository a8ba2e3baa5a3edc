import { promises as fs } from 'node:fs';
import { basename, extname, join, relative, resolve, sep } from 'node:path';

/**
 * The extensions POST /v1/documents extracts text from, with the content type sent for each.
 * Anything else would only earn a 415 per file, so it is skipped (and listed) before uploading.
 */
export const ACCEPTED_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
};

export interface CandidateFile {
  /** Absolute path on disk. */
  path: string;
  /** What the document is called on the server and on screen: the path below the folder given. */
  name: string;
  contentType: string;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/** A bad argument (a path that does not exist): the caller reports it as a usage error. */
export class UsageError extends Error {}

/**
 * Expands the command-line paths into the files to upload, in a stable order: folders are
 * walked recursively (sorted, so reruns list files the same way), files named twice are
 * uploaded once, and everything not uploadable is returned as skipped with the reason.
 */
export async function collectFiles(inputs: string[]): Promise<{ files: CandidateFile[]; skipped: SkippedFile[] }> {
  const files: CandidateFile[] = [];
  const skipped: SkippedFile[] = [];
  const seen = new Set<string>();

  const consider = (path: string, name: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const extension = extname(path).toLowerCase();
    const contentType = ACCEPTED_TYPES[extension];
    if (contentType) files.push({ path, name, contentType });
    else skipped.push({ path, reason: `unsupported type (${extension || 'no extension'})` });
  };

  const walk = async (root: string, folder: string): Promise<void> => {
    const entries = await fs.readdir(folder, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const name = relative(root, path).split(sep).join('/');
      // Hidden folders (.git, .cache) hold nothing a tenant means to upload, and listing each of
      // their files as skipped would bury the files that matter.
      if (entry.isDirectory() && entry.name.startsWith('.')) skipped.push({ path, reason: 'hidden folder, not walked' });
      else if (entry.isDirectory()) await walk(root, path);
      else if (entry.isFile()) consider(path, name);
      else if (entry.isSymbolicLink()) {
        // Linked files are uploaded; linked folders are not followed, so a link cycle cannot loop.
        const target = await fs.stat(path).catch(() => undefined);
        if (target?.isFile()) consider(path, name);
        else skipped.push({ path, reason: target ? 'linked folder, not followed' : 'broken link' });
      } else skipped.push({ path, reason: 'not a regular file' });
    }
  };

  for (const input of inputs) {
    const path = resolve(input);
    const stat = await fs.stat(path).catch(() => undefined);
    if (!stat) throw new UsageError(`No such file or folder: ${input}`);
    if (stat.isDirectory()) await walk(path, path);
    else if (stat.isFile()) consider(path, basename(path));
    else skipped.push({ path, reason: 'not a regular file' });
  }
  return { files, skipped };
}
