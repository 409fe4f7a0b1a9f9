export function helpTags(docDir: string): string[];
export function writeHelpTags(docDir: string): void;
