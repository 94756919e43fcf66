/** The errno code of a Node error (`ENOENT`, `EEXIST`, ...), or undefined for any other value. */
export function errnoOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}
