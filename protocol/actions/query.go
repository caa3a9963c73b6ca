package actions

// Query is the query action's name.
const Query = "query"

// MaxQueryDepth is the deepest tree the plugin describes (it refuses more).
const MaxQueryDepth = 10

// QueryRequest inspects the DataModel: one instance (Depth levels of
// children), its children, or the loaded services.
type QueryRequest struct {
	Path              string   `json:"path"`
	Depth             int      `json:"depth"`
	Properties        []string `json:"properties"`
	IncludeAttributes bool     `json:"includeAttributes"`
	Children          bool     `json:"children"`
	ListServices      bool     `json:"listServices"`
}

// QueryResult is one of Instance, Children or Services, as asked.
type QueryResult struct {
	Instance  *QueryNode     `json:"instance,omitempty"`
	Children  []QueryNode    `json:"children,omitempty"`
	Services  []QueryService `json:"services,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	// Duplicates lists the segments of the path that named several
	// siblings: the plugin took the first of each (FindFirstChild).
	Duplicates []QueryDuplicate `json:"duplicates,omitempty"`
}

// QueryDuplicate is a prefix of a query's path that names Count siblings.
type QueryDuplicate struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// QueryNode is one instance. Properties and attributes are typed values
// ({"$type": "Vector3", "value": [0, 4, 0]}); Children, present when depth
// asked for them, are nodes of the same shape.
type QueryNode struct {
	Name       string           `json:"name"`
	ClassName  string           `json:"className"`
	Path       string           `json:"path"`
	Properties map[string]any   `json:"properties"`
	Attributes map[string]any   `json:"attributes"`
	ChildCount int              `json:"childCount"`
	Children   []map[string]any `json:"children,omitempty"`
}

// QueryService is one service of the DataModel.
type QueryService struct {
	Name      string `json:"name"`
	ClassName string `json:"className"`
}
