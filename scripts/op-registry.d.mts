export function opRegistry(opsDir: string): string;
export function writeOpRegistry(opsDir: string): boolean;
