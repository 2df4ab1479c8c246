import { linesOf } from '../input.ts';
import { ImportFileError, MAX_FIELD } from '../source.ts';

/** The file's JSON Lines, parsed, with their numbers; a line that is not JSON stops the import there. */
export async function* jsonLines(path: string): AsyncGenerator<{ value: Record<string, unknown>; number: number }> {
  for await (const { line, number } of linesOf(path, MAX_FIELD * 4)) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ImportFileError(`line ${number}: not JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ImportFileError(`line ${number}: not a JSON object`);
    yield { value: value as Record<string, unknown>, number };
  }
}

export const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value));
export const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
