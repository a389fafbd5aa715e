/** Deterministic synthetic memories for benchmarks: a seeded PRNG over a fixed vocabulary. */
const WORDS = (
  'project meeting budget travel flight hotel dinner recipe garden music guitar piano concert movie book novel ' +
  'doctor appointment medicine running marathon training gym yoga swimming bicycle car repair insurance bank ' +
  'salary promotion manager team deadline release bug feature database server cloud deploy test review design ' +
  'sister brother mother father friend wedding birthday party gift holiday beach mountain hiking camping forest ' +
  'coffee tea breakfast lunch vegetarian allergy peanuts cheese bread pasta pizza sushi kitchen oven garden tomato ' +
  'school university course exam thesis research paper conference talk slides language spanish french german ' +
  'apartment rent move city porto lisbon berlin paris london tokyo office remote laptop phone keyboard monitor ' +
  'dog cat walk vet puppy kitten painting drawing photo camera museum gallery festival theatre dance salsa ' +
  'savings invest stocks pension tax refund loan mortgage house renovation roof window door paint floor tiles'
).split(' ');

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticTexts(count: number, seed = 1): string[] {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = 8 + Math.floor(random() * 9);
    const words: string[] = [];
    for (let j = 0; j < length; j++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    out.push(`${words.join(' ')} #${i}`);
  }
  return out;
}
