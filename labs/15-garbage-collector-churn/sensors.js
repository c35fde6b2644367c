'use strict';
// The site's sensor registry and what each metric may read: the reference
// data the ingestion service checks every reading against. In production
// it comes from the facilities database at start-up; here it is built the
// same way every time (4 buildings, 10 floors, 10 rooms: 400 sensors).

/** What each metric measures, its unit and the range a working sensor can read. */
const METRICS = {
  temp: { unit: '°C', min: -40, max: 85 },
  humidity: { unit: '%', min: 0, max: 100 },
  co2: { unit: 'ppm', min: 250, max: 10000 },
  pm25: { unit: 'µg/m³', min: 0, max: 1000 },
  noise: { unit: 'dB', min: 20, max: 140 },
};

const METRIC_NAMES = Object.keys(METRICS);

/**
 * Every sensor: its id (building, floor, room: b2-f03-r07), where it is,
 * when it was installed, and the metrics its model measures (every sensor
 * measures temp; the others depend on the model).
 */
function buildSensors() {
  const sensors = {};
  const models = [
    { model: 'TH-200', metrics: ['temp', 'humidity'] },
    { model: 'AQ-510', metrics: ['temp', 'humidity', 'co2', 'pm25'] },
    { model: 'NS-30', metrics: ['temp', 'noise'] },
    { model: 'CO-90', metrics: ['temp', 'co2'] },
  ];
  let n = 0;
  for (let b = 1; b <= 4; b++) {
    for (let f = 0; f < 10; f++) {
      for (let r = 1; r <= 10; r++) {
        const id = `b${b}-f${String(f).padStart(2, '0')}-r${String(r).padStart(2, '0')}`;
        const { model, metrics } = models[n++ % models.length];
        sensors[id] = {
          id,
          building: `B${b}`,
          floor: f,
          room: `${b}${String(f).padStart(2, '0')}${String(r).padStart(2, '0')}`,
          model,
          installed: new Date(Date.UTC(2022, (b * 3 + f) % 12, 1 + r)).toISOString().slice(0, 10),
          metrics,
        };
      }
    }
  }
  return sensors;
}

const SENSORS = buildSensors();

module.exports = { METRICS, METRIC_NAMES, SENSORS };
