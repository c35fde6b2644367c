// The trainers' agenda, planned from the lab list (labs/labs.json minutes):
// setup, the labs in order with a break about every 90–100 minutes of labs,
// and a wrap-up. When the day's work passes about 3.5 h, the break nearest
// 3¼ h into the day becomes lunch (around noon for a morning start). Plain CommonJS without dependencies, so
// the page and the site's tests use the same plan.

const SETUP = 20;
const BREAK = 15;
const LUNCH = 60;
const WRAP_UP = 15;
// A break once the labs since the last one would otherwise run past this.
const LABS_BETWEEN_BREAKS = 100;
// Setup, labs and wrap-up beyond this (without breaks) make a day with lunch,
const LUNCH_AFTER = 210;
// taken at the break that starts nearest this far into the day.
const LUNCH_AROUND = 195;

/**
 * @param {Array<{minutes:number}>} labs in order
 * @returns {{blocks: Array<{kind:'setup'|'lab'|'break'|'lunch'|'wrap-up', start:number, minutes:number, lab?:object}>,
 *   total:number}} start and minutes from the beginning of the day, in minutes
 */
function planAgenda(labs) {
  const plan = [{ kind: 'setup', minutes: SETUP }];
  let sinceBreak = 0;
  for (const lab of labs) {
    if (sinceBreak > 0 && sinceBreak + lab.minutes > LABS_BETWEEN_BREAKS) {
      plan.push({ kind: 'break', minutes: BREAK });
      sinceBreak = 0;
    }
    plan.push({ kind: 'lab', minutes: lab.minutes, lab });
    sinceBreak += lab.minutes;
  }
  plan.push({ kind: 'wrap-up', minutes: WRAP_UP });

  const work = plan.filter((b) => b.kind !== 'break').reduce((n, b) => n + b.minutes, 0);
  if (work > LUNCH_AFTER) {
    const breaks = plan.filter((b) => b.kind === 'break');
    if (breaks.length) {
      const startOf = (block) => plan.slice(0, plan.indexOf(block)).reduce((n, b) => n + b.minutes, 0);
      const off = (block) => Math.abs(startOf(block) - LUNCH_AROUND);
      const lunch = breaks.reduce((best, b) => (off(b) < off(best) ? b : best));
      lunch.kind = 'lunch';
      lunch.minutes = LUNCH;
    }
  }

  let clock = 0;
  const blocks = plan.map((block) => {
    const timed = { ...block, start: clock };
    clock += block.minutes;
    return timed;
  });
  return { blocks, total: clock };
}

/** 0:20, 3:25: minutes from the start of the day. */
function clockText(minutes) {
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

module.exports = { planAgenda, clockText, SETUP, BREAK, LUNCH, WRAP_UP };
