/** `text` without the boxes (╔ … ╚) that speak of Node.js; every other line, another box included, is kept. */
export function withoutNodeNotice(text: string): string;
