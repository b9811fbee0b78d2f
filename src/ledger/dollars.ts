/** Micro-cents (a millionth of a dollar) as dollars, exactly: 134000 → $0.134, 5000000 → $5.00, -250000 → -$0.25. */
export function dollars(microCents: number): string {
  if (microCents < 0) return `-${dollars(-microCents)}`;
  const whole = Math.floor(microCents / 1_000_000);
  const fraction = String(microCents % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `$${whole.toLocaleString('en-US')}.${fraction}`;
}

/** An amount as the CLI prints it: `2400000 micro-cents ($2.40)`. */
export function microCentsText(microCents: number): string {
  return `${microCents} micro-cents (${dollars(microCents)})`;
}
