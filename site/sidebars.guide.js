'use strict';
module.exports = {
  guide: [
    { type: 'doc', id: 'how-checks-measure', label: 'How the checks measure' },
    { type: 'doc', id: 'trainers', label: 'For trainers' },
  ],
};
