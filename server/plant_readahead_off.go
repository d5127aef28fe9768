//go:build !cosid_plant_readahead

package server

// plantReadAhead plants a defect for integration/servicesim to find: a ReadRanges
// stream that sends one range more than its client asked for (build tag
// cosid_plant_readahead). Never set in a build of the package.
const plantReadAhead = 0
